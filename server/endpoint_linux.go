package server

import "syscall"

// bornPrivate says a socket can be made private before its bind. On Linux the file a Unix
// socket binds takes the socket's own mode (less the umask), and fchmod sets that mode on the
// unbound socket: a socket made 0600 first is never reachable wider, wherever it is bound, with
// no folder to make or lock to take (docs/architecture.md, "One daemon, many windows").
const bornPrivate = true

// narrowSocket makes the unbound socket c 0600, which its file then has from its bind.
func narrowSocket(c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) { err = syscall.Fchmod(int(fd), 0o600) }); cerr != nil {
		return cerr
	}
	return err
}
