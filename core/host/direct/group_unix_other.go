//go:build unix && !linux

package direct

import "syscall"

// groupRunning reports whether a process of group pgid is there.
func groupRunning(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
