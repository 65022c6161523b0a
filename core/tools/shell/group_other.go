//go:build unix && !linux

package shell

import "syscall"

// groupAlive reports whether any process of group pgid still exists (zombies included: only
// Linux's /proc tells them apart).
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
}

// listeningPorts is Linux only: elsewhere the ports are left out.
func listeningPorts(int) []int { return nil }

// portsOf is Linux only: elsewhere the ports are left out.
func portsOf([]int) []int { return nil }
