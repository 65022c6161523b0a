//go:build unix && !linux

package server

import "syscall"

// bornPrivate is false where a socket file's mode comes from the umask alone (macOS and the
// BSDs): outside a private folder the socket binds in a fresh one (bindPrivate).
const bornPrivate = false

// narrowSocket does nothing where a socket's mode before its bind is not its file's.
func narrowSocket(syscall.RawConn) error { return nil }
