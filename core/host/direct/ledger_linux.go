package direct

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// add records the group pgid led by a process started just now; forget removes the record.
func (l *Ledger) add(pgid int) (forget func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	start, err := startTime(pgid)
	if err != nil {
		return func() {}, err
	}
	dir := l.dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}, err
	}
	b, err := json.Marshal(record{PGID: pgid, Start: start})
	if err != nil {
		return func() {}, err
	}
	name := filepath.Join(dir, strconv.Itoa(pgid)+".json")
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return func() {}, err
	}
	if err := os.Rename(tmp, name); err != nil {
		return func() {}, err
	}
	return func() { _ = os.Remove(name) }, nil // a record left behind is dropped by the next Reap
}

// selfName names this daemon's folder: daemonName, which its commands' tags start with.
func selfName() string { return daemonName.Get() }

// alive says whether the daemon a folder is named after still runs.
func alive(name string) bool {
	pid, st, ok := strings.Cut(name, ".")
	p, err1 := strconv.Atoi(pid)
	want, err2 := strconv.ParseUint(st, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	have, err := startTime(p)
	return err == nil && have == want
}

// Reap stops every group recorded by a daemon that no longer runs (SIGKILL: nobody reads it
// any more), then every process that carries a command tag of that daemon (tagVar: what left
// the group, setsid or a program that daemonized itself), and removes its records; it returns
// how many groups and such processes it stopped. A recorded group whose members all started
// before its leader did is someone else's that reused the id, and is left alone; so is every
// process of a daemon that runs, whose folder and tags name its start time. Each stopped group
// and process is waited for (reapWait at most) before Reap returns.
func (l *Ledger) Reap() (int, error) {
	if l == nil {
		return 0, nil
	}
	daemons, err := os.ReadDir(l.root)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	stopped := 0
	var errs []error
	for _, d := range daemons {
		if !d.IsDir() || alive(d.Name()) {
			continue
		}
		n, err := reapDir(filepath.Join(l.root, d.Name()))
		stopped += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return stopped, errors.Join(errs...)
}

// reapDir stops the groups recorded in a dead daemon's folder and the processes tagged by
// it, and removes the folder.
func reapDir(dir string) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	stopped := 0
	var errs []error
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		var r record
		b, err := os.ReadFile(p)
		if err == nil && json.Unmarshal(b, &r) == nil && r.PGID > 1 {
			if members := groupMembers(r.PGID, r.Start); len(members) > 0 {
				if err := syscall.Kill(-r.PGID, syscall.SIGKILL); err == nil {
					stopped++
					awaitGroupGone(r.PGID)
				} else if !errors.Is(err, syscall.ESRCH) {
					errs = append(errs, fmt.Errorf("stop group %d: %w", r.PGID, err))
					continue // kept for the next start
				}
			}
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	n, err := reapTagged(filepath.Base(dir))
	stopped += n
	if err != nil {
		errs = append(errs, err) // the folder stays for the next start
	}
	if len(errs) == 0 {
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return stopped, errors.Join(errs...)
}

// reapTagged stops the running processes tagged by the daemon named name (daemonName).
func reapTagged(name string) (int, error) {
	procs := tagged(func(tag string) bool { return strings.HasPrefix(tag, name+".") })
	var errs []error
	stopped := 0
	for _, p := range procs {
		if err := p.signal(syscall.SIGKILL); err != nil {
			errs = append(errs, fmt.Errorf("stop process %d: %w", p.pid, err))
			continue
		}
		stopped++
	}
	for deadline := time.Now().Add(reapWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !slices.ContainsFunc(procs, procInfo.running) {
			break
		}
	}
	return stopped, errors.Join(errs...)
}

// groupMembers returns the processes of group pgid that started no earlier than start.
func groupMembers(pgid int, start uint64) []int {
	var out []int
	for _, pid := range procIDs() {
		if p, err := readStat(pid); err == nil && p.pgid == pgid && p.start >= start {
			out = append(out, pid)
		}
	}
	return out
}

func startTime(pid int) (uint64, error) {
	p, err := readStat(pid)
	return p.start, err
}

// awaitGroupGone waits, a short while at most, for a group sent SIGKILL to be gone: the signal is
// delivered when each process next runs, and Reap's caller (a daemon about to serve) promises
// the group stopped before any client connects.
func awaitGroupGone(pgid int) {
	for deadline := time.Now().Add(reapWait); groupRunning(pgid) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// reapWait bounds awaitGroupGone: a process stuck in the kernel (uninterruptible I/O) leaves later.
const reapWait = 2 * time.Second

// groupRunning reports whether a process of group pgid runs (zombies, which nobody may reap
// here, do not count).
func groupRunning(pgid int) bool { return len(runningMembers(pgid)) > 0 }

// runningMembers returns the processes of group pgid that run (not zombies).
func runningMembers(pgid int) []int {
	var out []int
	for _, pid := range procIDs() {
		if p, err := readStat(pid); err == nil && p.pgid == pgid && !p.zombie {
			out = append(out, pid)
		}
	}
	return out
}
