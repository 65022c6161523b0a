package direct

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return func() {}, err
	}
	b, err := json.Marshal(record{PGID: pgid, Start: start})
	if err != nil {
		return func() {}, err
	}
	name := filepath.Join(l.dir, strconv.Itoa(pgid)+".json")
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return func() {}, err
	}
	if err := os.Rename(tmp, name); err != nil {
		return func() {}, err
	}
	return func() { _ = os.Remove(name) }, nil // a record left behind is dropped by the next Reap
}

// selfName names this daemon's folder: its process id and start time.
func selfName() string {
	st, _ := startTime(os.Getpid()) // unreadable: 0, which a later daemon never matches
	return fmt.Sprintf("%d.%d", os.Getpid(), st)
}

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
// any more) and removes its records; it returns how many groups it stopped. A recorded group
// whose members all started before its leader did is someone else's that reused the id, and
// is left alone.
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

// reapDir stops the groups recorded in a dead daemon's folder and removes the folder.
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
	if len(errs) == 0 {
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return stopped, errors.Join(errs...)
}

// groupMembers returns the processes of group pgid that started no earlier than start.
func groupMembers(pgid int, start uint64) []int {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		g, st, err := procStat(pid)
		if err == nil && g == pgid && st >= start {
			out = append(out, pid)
		}
	}
	return out
}

func startTime(pid int) (uint64, error) {
	_, st, err := procStat(pid)
	return st, err
}

// procStat reads a process's group and start time from /proc/PID/stat (proc(5)).
func procStat(pid int) (pgid int, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	if pgid, err = strconv.Atoi(f[2]); err != nil { // field 5
		return 0, 0, err
	}
	start, err = strconv.ParseUint(f[19], 10, 64) // field 22
	return pgid, start, err
}

// groupRunning reports whether a process of group pgid runs (zombies, which nobody may reap
// here, do not count).
func groupRunning(pgid int) bool {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if i < 0 || len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid && pid > 0 {
			return true
		}
	}
	return false
}
