// Package sandboxtest helps tests look at processes that run in Cairn's command sandbox
// (docs/sandbox.md): there a command has a process table of its own, so the id it prints
// (`echo $!`) is its id in that namespace, not the one the test sees.
package sandboxtest

import (
	"os"
	"runtime"
	"strconv"
	"strings"

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
