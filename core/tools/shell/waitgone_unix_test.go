//go:build unix

package shell

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
)

// waitGone waits until pid runs no more (a zombie counts as gone); it fails after 10 s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	if runtime.GOOS == "linux" && sandbox.Probe().Available {
		for range 500 {
			if !sandboxedAlive(pid) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("sandboxed process %d survived", pid)
	}
	for range 500 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(stat, ')'); err != nil || i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d survived", pid)
}

// sandboxedAlive reports whether a `sleep` process that its sandbox knows as pid still runs
// (a zombie counts as gone). The sandbox gives commands a process table of their own
// (docs/sandbox.md), so `$!` there is the process's id in that namespace, which
// /proc/PID/status names last on its NSpid line; the tests' leftover processes are all
// `sleep`, which tells them from a namesake in another sandbox.
func sandboxedAlive(pid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	want := strconv.Itoa(pid)
	for _, e := range entries {
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var nspid []string
		zombie := false
		for _, line := range strings.Split(string(status), "\n") {
			if f, ok := strings.CutPrefix(line, "NSpid:"); ok {
				nspid = strings.Fields(f)
			}
			if f, ok := strings.CutPrefix(line, "State:"); ok && strings.HasPrefix(strings.TrimSpace(f), "Z") {
				zombie = true
			}
		}
		if len(nspid) > 1 && nspid[len(nspid)-1] == want && !zombie {
			cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if bytes.HasPrefix(cmdline, []byte("sleep")) {
				return true
			}
		}
	}
	return false
}
