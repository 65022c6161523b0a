package direct

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairnhq/cairn/core/lazy"
)

// procInfo is one process as /proc/PID/stat tells it (proc(5)).
type procInfo struct {
	pid, pgid int
	// start is the process's start time in clock ticks since boot: with pid, it names one
	// process, never another that reused the id.
	start uint64
	// zombie: it ended and waits to be reaped (state Z or X); nothing of it runs.
	zombie bool
	// kernel: a kernel thread (PF_KTHREAD), which has no environment.
	kernel bool
}

// pfKthread is the kernel's PF_KTHREAD flag in /proc/PID/stat's flags field.
const pfKthread = 0x00200000

// readStat reads pid's /proc/PID/stat.
func readStat(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	p := procInfo{pid: pid, zombie: f[0] == "Z" || f[0] == "X"}
	if p.pgid, err = strconv.Atoi(f[2]); err != nil { // field 5
		return procInfo{}, err
	}
	flags, err := strconv.ParseUint(f[6], 10, 64) // field 9
	if err != nil {
		return procInfo{}, err
	}
	p.kernel = flags&pfKthread != 0
	p.start, err = strconv.ParseUint(f[19], 10, 64) // field 22
	return p, err
}

// procIDs lists the processes in /proc (nil when it cannot be read).
func procIDs() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// running reports whether p still runs: the same process (its start time) and not a zombie.
func (p procInfo) running() bool {
	now, err := readStat(p.pid)
	return err == nil && now.start == p.start && !now.zombie
}

// signal sends sig to p, and only to p: through a pidfd, which names the process and not
// the id, once the start time showed the id still is p's. A process that ended meanwhile
// is not an error.
func (p procInfo) signal(sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	if err != nil { // a kernel without pidfds (before 5.3): the start time check alone
		if !p.running() {
			return nil
		}
		return ignoreGone(syscall.Kill(p.pid, sig))
	}
	defer func() { _ = unix.Close(fd) }() // a descriptor only
	if now, err := readStat(p.pid); err != nil || now.start != p.start {
		return nil // p ended and its id was reused before the pidfd was opened
	}
	return ignoreGone(unix.PidfdSendSignal(fd, sig, nil, 0))
}

func ignoreGone(err error) error {
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// tagVar is the environment variable that tags the processes of a command run outside the
// command sandbox: every process the command starts inherits it, also one that leaves the
// command's process group (setsid, a program that daemonizes itself), so the terminal keeps
// and stops those too and the next daemon stops what a killed daemon's commands left
// (README, "Commands that keep running"). Its value is a space-separated list of tags, the
// command's last: a command of a daemon that itself runs as a command carries both. A tag
// is daemonName.Get() and the command's number in that daemon.
const tagVar = "CAIRN_COMMAND"

// daemonName names this daemon: its process id and start time (0 when unreadable, which a
// later daemon never matches), so that neither a later daemon nor a process that reuses the
// id is taken for it.
var daemonName = lazy.Value[string]{New: func() string {
	st, _ := readStat(os.Getpid())
	return fmt.Sprintf("%d.%d", os.Getpid(), st.start)
}}

// tagSeq numbers the tagged commands of this daemon.
var tagSeq atomic.Int64

// newTag returns the tag of a command about to start.
func newTag() string { return daemonName.Get() + "." + strconv.FormatInt(tagSeq.Add(1), 10) }

// withTag returns env with tag appended to tagVar's list (inherited from the daemon's own
// environment when it runs as a command).
func withTag(env []string, tag string) []string {
	out := make([]string, 0, len(env)+1)
	val := tag
	for _, kv := range env {
		if old, ok := strings.CutPrefix(kv, tagVar+"="); ok {
			if old = strings.TrimSpace(old); old != "" {
				val = old + " " + tag
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, tagVar+"="+val)
}

// environOf reads pid's /proc/PID/environ.
func environOf(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

// tagsOf returns the tags in pid's environment as it started, read by environ
// (/proc/PID/environ): none when it has none, or it is another user's and cannot be read. blank reports an
// environment that read as nothing at all, which a process in the middle of an exec shows
// (the new program's environment is not set up yet) as well as one started with none.
func tagsOf(environ func(pid int) ([]byte, error), pid int) (tags []string, blank bool) {
	b, err := environ(pid)
	if err != nil {
		return nil, false
	}
	prefix := []byte(tagVar + "=")
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return strings.Fields(string(v)), false
		}
	}
	return nil, len(b) == 0
}

// execRetries and execRetryWait bound how long tagged waits for the environment of a
// process that read as blank: a process that left the command's group and then runs
// another program (`setsid server` execs server) reads as blank for the moment of that
// exec, and missed then, it would be taken for gone.
const (
	execRetries   = 5
	execRetryWait = 4 * time.Millisecond
)

// tagged returns the running processes, this one aside, one of whose tags match accepts.
// It reads every process's environment, so it runs when a command ended or is stopped and
// at Reap, never on a timer. A user process whose environment reads as blank is read again
// a few times (execRetries): it may be in the middle of an exec.
func tagged(match func(tag string) bool) []procInfo { return taggedBy(environOf, match) }

// taggedBy is tagged with the environments read by environ. The reader is a parameter, not
// a variable the tests replace, so a test's reader is never seen by another test's
// processes still being stopped in the background.
func taggedBy(environ func(pid int) ([]byte, error), match func(tag string) bool) []procInfo {
	var out []procInfo
	self := os.Getpid()
	pids := procIDs()
	for try := 0; ; try++ {
		var blank []int
		for _, pid := range pids {
			if pid == self {
				continue
			}
			tags, empty := tagsOf(environ, pid)
			if empty {
				blank = append(blank, pid)
				continue
			}
			if !slices.ContainsFunc(tags, match) {
				continue
			}
			if p, err := readStat(pid); err == nil && !p.zombie {
				out = append(out, p)
			}
		}
		// Kernel threads and zombies have no environment to wait for.
		blank = slices.DeleteFunc(blank, func(pid int) bool {
			p, err := readStat(pid)
			return err != nil || p.zombie || p.kernel
		})
		if len(blank) == 0 || try == execRetries {
			return out
		}
		pids = blank
		time.Sleep(execRetryWait)
	}
}
