//go:build unix

package direct

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/tools"
)

// modes runs every behavioural test over a PTY and over the pipe fallback.
var modes = []struct {
	name  string
	noPTY bool
}{{"pty", false}, {"pipes", true}}

func newTestTerminal(noPTY bool) *Terminal {
	t := NewTerminal("/bin/sh")
	t.noPTY = noPTY
	t.Grace = 100 * time.Millisecond
	return t
}

// normalise undoes the PTY's \n → \r\n translation so both modes compare alike.
func normalise(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// testCtx bounds a test that would otherwise hang on a bug; it is not a timing assertion.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func runAll(t *testing.T, term *Terminal, cwd, command string) (string, int) {
	t.Helper()
	ctx := testCtx(t)
	p, err := term.Run(ctx, tools.CommandRequest{Command: command, Cwd: cwd})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	out, err := io.ReadAll(p.Output())
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return normalise(string(out)), code
}

func TestRunOutputAndExitCode(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		command string
		want    string
		code    int
	}{
		{"last line without newline", `printf 'one\ntwo'`, "one\ntwo", 0},
		{"exit code", "echo x; exit 3", "x\n", 3},
		{"stderr in order", "echo out; echo err >&2; echo out2", "out\nerr\nout2\n", 0},
		{"cwd", "pwd", dir + "\n", 0},
		{"no pager, dumb terminal", `echo "$TERM $PAGER $GIT_PAGER"`, "dumb cat cat\n", 0},
		{"signalled shell", "kill -TERM $$", "", 128 + int(syscall.SIGTERM)},
		{"output right before exit", `seq 1 20000 | tail -n 1; printf end; exit 7`, "20000\nend", 7},
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				out, code := runAll(t, newTestTerminal(m.noPTY), dir, c.command)
				if out != c.want {
					t.Errorf("output = %q, want %q", out, c.want)
				}
				if code != c.code {
					t.Errorf("exit code = %d, want %d", code, c.code)
				}
			})
		}
	}
}

func TestBigOutputIsComplete(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			out, code := runAll(t, newTestTerminal(m.noPTY), t.TempDir(), "seq 1 100000")
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if code != 0 || len(lines) != 100000 || lines[0] != "1" || lines[99999] != "100000" {
				t.Fatalf("code %d, %d lines, first %q, last %q", code, len(lines), lines[0], lines[len(lines)-1])
			}
		})
	}
}

func TestStdoutIsTerminalOnlyWithPTY(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			out, _ := runAll(t, newTestTerminal(m.noPTY), t.TempDir(), `[ -t 1 ] && echo tty || echo notty`)
			want := map[bool]string{false: "tty\n", true: "notty\n"}[m.noPTY]
			if out != want {
				t.Errorf("output = %q, want %q", out, want)
			}
		})
	}
}

// gone reports whether pid no longer runs. A killed process may stay a zombie until someone
// reaps it, which PID 1 in a container may never do; a zombie runs nothing.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// waitGone waits for the kernel to finish a kill; it fails only if pid survives 10 s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		if gone(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d still alive", pid)
}

// startWithPID runs command, which must print a PID as its first line, and returns it.
func startWithPID(ctx context.Context, t *testing.T, term *Terminal, command string) (tools.Process, *bufio.Reader, int) {
	t.Helper()
	p, err := term.Run(ctx, tools.CommandRequest{Command: command, Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := bufio.NewReader(p.Output())
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("first line %q is not a pid", line)
	}
	return p, r, pid
}

func TestCancelKillsWholeGroup(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(testCtx(t))
			p, rest, child := startWithPID(ctx, t, newTestTerminal(m.noPTY), "sleep 100 & echo $!; wait")
			cancel()
			if _, err := io.ReadAll(rest); err != nil {
				t.Fatalf("drain: %v", err)
			}
			code, err := p.Wait(testCtx(t))
			if err != nil || code != 128+int(syscall.SIGTERM) {
				t.Errorf("Wait = %d, %v; want %d", code, err, 128+int(syscall.SIGTERM))
			}
			waitGone(t, child)
		})
	}
}

func TestKillEscalatesToSIGKILL(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ctx := testCtx(t)
			p, rest, child := startWithPID(ctx, t, newTestTerminal(m.noPTY), `trap "" TERM; sleep 100 & echo $!; wait`)
			if err := p.Kill(); err != nil {
				t.Fatalf("Kill: %v", err)
			}
			if _, err := io.ReadAll(rest); err != nil {
				t.Fatalf("drain: %v", err)
			}
			code, err := p.Wait(ctx)
			if err != nil || code != 128+int(syscall.SIGKILL) {
				t.Errorf("Wait = %d, %v; want %d (SIGTERM is ignored, so only SIGKILL ends it)", code, err, 128+int(syscall.SIGKILL))
			}
			waitGone(t, child)
			if err := p.Kill(); err != nil {
				t.Errorf("Kill of a finished group = %v, want nil", err)
			}
		})
	}
}

// An orphaned background job keeps the PTY or pipe open; output must still end after the
// shell exits, with everything the shell wrote.
func TestOrphanDoesNotHoldOutputOpen(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ctx := testCtx(t)
			p, rest, child := startWithPID(ctx, t, newTestTerminal(m.noPTY), `(trap "" HUP; exec sleep 100) & echo $!; echo bye`)
			t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
			out, err := io.ReadAll(rest)
			if err != nil || normalise(string(out)) != "bye\n" {
				t.Errorf("rest = %q, %v; want \"bye\\n\"", out, err)
			}
			if code, err := p.Wait(ctx); code != 0 || err != nil {
				t.Errorf("Wait = %d, %v", code, err)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	term := newTestTerminal(false)
	if _, err := term.Run(context.Background(), tools.CommandRequest{Command: "true", Cwd: "/does/not/exist"}); err == nil {
		t.Error("Run in a missing directory: want error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := term.Run(ctx, tools.CommandRequest{Command: "true", Cwd: t.TempDir()}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled ctx = %v, want context.Canceled", err)
	}
}

func TestWaitHonoursContext(t *testing.T) {
	term := newTestTerminal(false)
	p, err := term.Run(testCtx(t), tools.CommandRequest{Command: "sleep 100", Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Kill(); err != nil {
			t.Errorf("Kill: %v", err)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
}

func BenchmarkSeq100k(b *testing.B) {
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			term := newTestTerminal(m.noPTY)
			for b.Loop() {
				p, err := term.Run(context.Background(), tools.CommandRequest{Command: "seq 1 100000", Cwd: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, p.Output())
				b.SetBytes(n)
			}
		})
	}
}

// A program that opens /dev/tty (a password prompt, stty) reaches the command's own PTY,
// whose output the model reads, never the terminal Cairn itself was started from (or, in a
// daemon without one, no terminal at all).
func TestDevTTYIsTheCommandsPTY(t *testing.T) {
	out, code := runAll(t, newTestTerminal(false), t.TempDir(), `echo prompt > /dev/tty && stty size < /dev/tty`)
	if code != 0 || out != "prompt\n50 200\n" {
		t.Errorf("output %q, exit code %d; want the prompt and the PTY's size", out, code)
	}
}

// What a command leaves running is not hung up when the shell, which leads the PTY's session,
// exits: it is there for the leftover check to keep (README, "Commands that keep running").
func TestLeftoverOutlivesTheShellOnThePTY(t *testing.T) {
	ctx := testCtx(t)
	p, rest, child := startWithPID(ctx, t, newTestTerminal(false), `sleep 100 & echo $!`)
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	if _, err := io.ReadAll(rest); err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(ctx); code != 0 || err != nil {
		t.Fatalf("Wait = %d, %v", code, err)
	}
	time.Sleep(200 * time.Millisecond) // a hangup is delivered at the shell's exit; give it time to act
	if gone(child) {
		t.Error("the shell's exit ended what it left running")
	}
}
