package winjob

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// helperEnv makes the test binary a stand-in instead of running tests: "daemon" starts a
// "command" copy of itself in a job (the mode in helperModeEnv), prints the command's PID and
// waits; "command" waits.
const (
	helperEnv     = "CAIRN_WINJOB_TEST_HELPER"
	helperModeEnv = "CAIRN_WINJOB_TEST_MODE"
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "daemon":
		self, err := os.Executable()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), helperEnv+"=command")
		if err := cmd.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		mode := Leave
		if os.Getenv(helperModeEnv) == "end" {
			mode = End
		}
		if _, err := Assign(cmd.Process.Pid, mode); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		time.Sleep(time.Minute)
		os.Exit(0)
	case "command":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A daemon killed outright takes the jobs it made with End with it: the system closes its
// handles, the last ones of the jobs (README, "Commands that keep running"). With Leave the
// command runs on.
func TestJobEndsWithTheKilledDaemon(t *testing.T) {
	for _, tc := range []struct {
		mode string
		ends bool
	}{{"end", true}, {"leave", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			daemon := exec.Command(self)
			daemon.Env = append(os.Environ(), helperEnv+"=daemon", helperModeEnv+"="+tc.mode)
			out, err := daemon.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := daemon.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				_ = daemon.Process.Kill()
				t.Fatalf("the daemon said %q (%v)", line, err)
			}
			h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
			if err != nil {
				_ = daemon.Process.Kill()
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = windows.TerminateProcess(h, 1)
				_ = windows.CloseHandle(h)
			})
			if err := daemon.Process.Kill(); err != nil { // TerminateProcess: no chance to clean up
				t.Fatal(err)
			}
			_ = daemon.Wait() // killed: its status says so
			wait := uint32(10_000)
			if !tc.ends {
				wait = 2_000 // long enough for an end that was to come
			}
			ev, err := windows.WaitForSingleObject(h, wait)
			ended := err == nil && ev == windows.WAIT_OBJECT_0
			if ended != tc.ends {
				t.Errorf("the command ended: %v, want %v (wait: %d, %v)", ended, tc.ends, ev, err)
			}
		})
	}
}
