//go:build unix

package server

import "syscall"

// umask sets the process umask so the socket is created private, returning the old one.
func umask(m int) int { return syscall.Umask(m) }
