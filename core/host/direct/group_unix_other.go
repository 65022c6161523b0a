//go:build unix && !linux

package direct

import "syscall"

// groupRunning reports whether a process of group pgid is there.
func groupRunning(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// Without /proc, a process that leaves its command's group cannot be found, so commands are
// not tagged (tagVar is Linux only) and only the group counts.

func newTag() string { return "" }

func withTag(env []string, _ string) []string { return env }

// left reports whether anything of the command's group is still there.
func (p *process) left() bool { return groupRunning(p.pgid) }

// signalEscaped has nothing to signal where nothing is tagged.
func (p *process) signalEscaped(syscall.Signal) (int, error) { return 0, nil }

// escapes is empty: see newTag.
type escapes struct{}
