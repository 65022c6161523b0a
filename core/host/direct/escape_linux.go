package direct

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"

	"github.com/cairnhq/cairn/core/tools"
)

// escapes is what a process knows of the processes that left its group.
type escapes struct {
	// mu guards the fields below.
	mu sync.Mutex
	// escaped are the tagged processes found outside the group, the last time they were
	// looked for; scanned: they were looked for since the shell exited.
	escaped []procInfo
	scanned bool
	// gone: the shell exited and nothing of the command runs, so nothing can start again.
	gone bool
}

// Members returns the command's processes that run (tools.MemberProcess): its process
// group's, and those that carry its tag outside the group (tagVar: `setsid server &`, a
// program that daemonized itself). Those are looked for in every process's environment only
// once the shell exited: the first time, and again whenever the ones known are all gone.
// Once nothing of the command runs, nothing of it can start again, and it never looks again.
func (p *process) Members() []int {
	e := &p.escapes
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gone {
		return nil
	}
	out := runningMembers(p.pgid)
	exited := false
	select {
	case <-p.exited:
		exited = true
	default:
	}
	e.escaped = slices.DeleteFunc(e.escaped, func(q procInfo) bool { return !q.running() })
	if p.tag != "" && exited && (!e.scanned || len(out)+len(e.escaped) == 0) {
		e.escaped, e.scanned = p.escapees(), true
		if len(out)+len(e.escaped) == 0 {
			// One pass over /proc is no snapshot: a process that started a child and ended
			// while it ran may have been missed with its child. A second pass finds the child.
			e.escaped = p.escapees()
		}
	}
	for _, q := range e.escaped {
		out = append(out, q.pid)
	}
	e.gone = exited && len(out) == 0
	return out
}

// left reports whether anything of the command still runs.
func (p *process) left() bool { return len(p.Members()) > 0 }

// escapees returns the running processes with p's tag outside p's group.
func (p *process) escapees() []procInfo {
	if p.tag == "" {
		return nil
	}
	return slices.DeleteFunc(tagged(func(t string) bool { return t == p.tag }),
		func(e procInfo) bool { return e.pgid == p.pgid })
}

// signalEscaped sends sig to the processes that left p's group (escapees), looked for anew,
// and returns how many it signalled.
func (p *process) signalEscaped(sig syscall.Signal) (int, error) {
	var errs []error
	n := 0
	for _, e := range p.escapees() {
		if err := e.signal(sig); err != nil {
			errs = append(errs, fmt.Errorf("direct: signal process %d: %w", e.pid, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

var _ tools.MemberProcess = (*process)(nil)
