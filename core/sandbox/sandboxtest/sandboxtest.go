// Package sandboxtest helps tests of Cairn's command sandbox (docs/sandbox.md): Require skips a
// test only where the sandbox cannot be set up and that is not a failure, and Alive finds a
// sandboxed process, which has a process table of its own, so the id it prints (`echo $!`) is
// its id in that namespace, not the one the test sees.
package sandboxtest

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/sandbox"
)

// Alive reports whether a process that knows itself as pid inside a sandbox, and descends
// from this process, still runs (a zombie counts as gone); ok is false when commands here do
// not run in a sandbox with a process table of its own (the sandbox cannot be set up, or
// there is no /proc): the caller then looks at pid itself.
func Alive(pid int) (alive, ok bool) {
	if runtime.GOOS != "linux" || !sandbox.Probe().Available {
		return false, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	want := strconv.Itoa(pid)
	self := os.Getpid()
	for _, e := range entries {
		st, ok := status(e.Name())
		if !ok || len(st.nspid) < 2 || st.nspid[len(st.nspid)-1] != want || !descends(st.ppid, self) {
			continue
		}
		return !st.zombie, true
	}
	return false, true
}

type procStatus struct {
	nspid  []string
	ppid   int
	zombie bool
}

func status(pid string) (procStatus, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return procStatus{}, false
	}
	var st procStatus
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "NSpid":
			st.nspid = strings.Fields(v)
		case "PPid":
			st.ppid, _ = strconv.Atoi(v)
		case "State":
			st.zombie = strings.HasPrefix(v, "Z") || strings.HasPrefix(v, "X")
		}
	}
	return st, true
}

// descends reports whether ppid is ancestor, or descends from it.
func descends(ppid, ancestor int) bool {
	for range 64 {
		if ppid == ancestor {
			return true
		}
		if ppid <= 1 {
			return false
		}
		st, ok := status(strconv.Itoa(ppid))
		if !ok {
			return false
		}
		ppid = st.ppid
	}
	return false
}

// Require skips t where no sandbox can be set up, with the kernel's reason, except on a Linux
// CI machine: those have the sandbox's features, so a sandbox that does not start there is a
// failure, not a reason to skip every test of it.
func Require(t testing.TB) {
	t.Helper()
	st := sandbox.Probe()
	if st.Available {
		return
	}
	if runtime.GOOS == "linux" && os.Getenv("CI") != "" {
		t.Fatalf("the command sandbox does not start on this CI machine, which has its features: %s", st.Reason)
	}
	t.Skip("no command sandbox here: " + st.Reason)
}
