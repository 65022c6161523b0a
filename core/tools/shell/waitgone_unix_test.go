//go:build unix

package shell

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
)

// waitGone waits until pid runs no more (a zombie counts as gone); it fails after 10 s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	if _, ok := sandboxtest.Alive(pid); ok {
		for range 500 {
			if alive, _ := sandboxtest.Alive(pid); !alive {
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
