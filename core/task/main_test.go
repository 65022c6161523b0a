package task

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the programs some tests run, the same way on
// every platform: a command that prints many numbers (seq is not on Windows), and on Windows
// a hook (started by PreToolUse.cmd: hooks there are .exe, .cmd, .bat or .ps1 files, not sh
// scripts). Environment variables choose the part played.
func TestMain(m *testing.M) {
	if n := os.Getenv("CAIRN_TASK_TEST_PRINT"); n != "" {
		os.Exit(printNumbers(n))
	}
	if kind := os.Getenv("CAIRN_TASK_TEST_HOOK_AS"); kind != "" {
		os.Exit(playHook(os.Getenv("CAIRN_TASK_TEST_HOOK_" + kind)))
	}
	os.Exit(m.Run())
}

// printNumbers prints 1 to n, one a line, as seq does.
func printNumbers(n string) int {
	last, err := strconv.Atoi(n)
	if err != nil {
		return 2
	}
	out := make([]byte, 0, 1<<16)
	for i := 1; i <= last; i++ {
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, '\n')
		if len(out) > 1<<16-32 {
			if _, err := os.Stdout.Write(out); err != nil {
				return 1
			}
			out = out[:0]
		}
	}
	if _, err := os.Stdout.Write(out); err != nil {
		return 1
	}
	return 0
}

// playHook acts as a hook: it reads the event from stdin and answers as act says.
func playHook(act string) int {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 1
	}
	switch act {
	case "block-writes":
		if strings.Contains(string(in), `"toolName":"write_to_file"`) {
			fmt.Println(`{"cancel": true, "errorMessage": "Writes are frozen during the release.", "contextModification": "Propose the change as a patch instead."}`)
		} else {
			fmt.Println(`{"cancel": false}`)
		}
	case "sleep":
		time.Sleep(60 * time.Second)
	case "garbage":
		fmt.Println("all good!")
	case "empty":
		fmt.Println("{}")
	default:
		return 2
	}
	return 0
}

// testHook is one hook for realHooks: a sh script on Unix, and on Windows the part the test
// binary plays (see playHook).
type testHook struct {
	sh, act string
}

// hookFile is the name a hook of kind has in a workspace on this platform.
func hookFile(kind string) string {
	if runtime.GOOS == "windows" {
		return kind + ".cmd"
	}
	return kind
}

// hookContent is what realHooks writes for a hook of kind: its sh script, or on Windows a
// batch file that runs the test binary as that hook.
func hookContent(kind string, h testHook) []byte {
	if runtime.GOOS != "windows" {
		return []byte(h.sh)
	}
	return []byte("@set CAIRN_TASK_TEST_HOOK_AS=" + kind + "\r\n@\"" + os.Args[0] + "\" -test.run=NONE\r\n")
}

// printCommand is a command line that prints 1 to n: seq, or on Windows the test binary
// playing seq (see TestMain).
func printCommand(t *testing.T, n int) string {
	if runtime.GOOS != "windows" {
		return fmt.Sprintf("seq 1 %d", n)
	}
	t.Setenv("CAIRN_TASK_TEST_PRINT", strconv.Itoa(n))
	return `"` + os.Args[0] + `" -test.run=NONE`
}

// newFileBody is s as the edit tools save it in a new file: CRLF line endings on Windows.
func newFileBody(s string) string {
	if runtime.GOOS != "windows" {
		return s
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}
