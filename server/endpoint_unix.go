//go:build unix

package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// listenLocal binds the daemon's private Unix socket (cfg.Socket, default DataDir/daemon.sock)
// and returns it with its address and path.
func listenLocal(cfg Config) (net.Listener, string, string, error) {
	sock := cfg.Socket
	if sock == "" {
		sock = filepath.Join(cfg.DataDir, "daemon.sock")
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return nil, "", "", fmt.Errorf("server: %w", err)
	}
	lis, err := bindSocket(sock)
	if err != nil {
		return nil, "", "", err
	}
	return lis, "unix://" + sock, sock, nil
}

// bindSocket binds the Unix socket; the socket file is the lock that makes one daemon win when
// several start at once. Where a socket is private from its bind (bornPrivate, or a folder only
// this user may enter) and no file is at sock, as a daemon that stopped cleanly leaves it, the
// bind alone decides: it fails for every starter but one, and no lock file is opened or, on a
// first start, created (creating a file costs some file systems more than the rest of a start;
// docs/performance.md, "P5 — the daemon at rest"). A file at sock that nobody answers on (its
// daemon was killed) is removed; a live one is never stolen. Starters that find a file hold a
// lock file from the check to the bind, so one cannot remove or replace a socket another has
// just bound; a starter that binds without the lock once the stale file is gone wins, and the
// one that removed it is told a daemon runs.
func bindSocket(sock string) (net.Listener, error) {
	inPlace := bornPrivate || privateFolder(filepath.Dir(sock))
	if inPlace {
		lis, err := bindNarrowed(sock, sock)
		if !errors.Is(err, syscall.EADDRINUSE) {
			return lis, err
		}
	}
	unlock, err := lockFile(sock + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Lstat(sock); err == nil {
		if daemonAnswers(sock) {
			return nil, fmt.Errorf("server: %w on %s", ErrDaemonRunning, sock)
		}
		if err := os.Remove(sock); err != nil {
			return nil, fmt.Errorf("server: removing a stale socket: %w", err)
		}
	}
	lis, err := bindPrivate(sock)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("server: %w on %s", ErrDaemonRunning, sock)
	}
	return lis, err
}

// bindPrivate binds the socket so that it is never reachable with wider permissions than 0600.
// Where the socket has its mode before its bind (bornPrivate), or in a folder only this user
// may enter (the data dir, 0700, where the socket lives by default), it binds at sock. Elsewhere
// it binds in a fresh 0700 folder beside sock, makes it 0600 and only then renames it to sock:
// that folder costs a mkdir and an rmdir, most of what binding takes. (Setting the umask instead
// would change it for the whole process, and a command forked meanwhile would inherit it.) The
// caller holds the starters' lock and has made sure sock does not exist.
func bindPrivate(sock string) (_ net.Listener, err error) {
	if bornPrivate || privateFolder(filepath.Dir(sock)) {
		return bindNarrowed(sock, sock)
	}
	dir, err := os.MkdirTemp(filepath.Dir(sock), ".b")
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = fmt.Errorf("server: %w", rerr)
		}
	}()
	return bindNarrowed(filepath.Join(dir, "s"), sock)
}

// bindNarrowed binds at path, makes the socket file 0600 and moves it to sock when that is
// another path. On failure nothing is left at either path. Where the system allows it
// (listenNarrow), the socket is 0600 from its bind already; the chmod after it is then exact
// about a umask that took more bits away.
func bindNarrowed(path, sock string) (net.Listener, error) {
	lis, err := listenNarrow(path)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	fail := func(err error) (net.Listener, error) {
		return nil, fmt.Errorf("server: %w", errors.Join(err, lis.Close(), os.Remove(path)))
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fail(err)
	}
	if path != sock {
		if err := os.Rename(path, sock); err != nil {
			return fail(err)
		}
	}
	return lis, nil
}

// listenNarrow binds a Unix socket at path, narrowed to 0600 before its bind where the system
// gives the file the socket's mode (narrowSocket). Closing it leaves the file.
func listenNarrow(path string) (*net.UnixListener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error { return narrowSocket(c) }}
	lis, err := lc.Listen(context.Background(), "unix", path)
	if err != nil {
		return nil, err
	}
	ul := lis.(*net.UnixListener)
	ul.SetUnlinkOnClose(false)
	return ul, nil
}

// privateFolder reports whether dir is a folder (not a link to one) that this user owns and
// that grants nobody else any permission.
func privateFolder(dir string) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir() && fi.Mode().Perm()&0o077 == 0 && ownedByMe(fi)
}

// ownedByMe reports whether the file fi describes belongs to this process's effective user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// daemonAnswers reports whether a server answers on sock. Connecting is not proof: for a moment
// after a daemon was SIGKILLed, a child it was starting can still hold the listening socket,
// which then accepts connections into its backlog that nobody serves. A gRPC server sends its
// HTTP/2 settings as soon as it accepts, so a live daemon says something at once.
func daemonAnswers(sock string) bool {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return false
	}
	defer func() { _ = c.Close() }() // a probe: it carried nothing
	if err := c.SetReadDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return false
	}
	var b [1]byte
	n, err := c.Read(b[:])
	return n == 1 && err == nil
}

// DialPipe fails outside Windows: a handshake naming a pipe comes from another machine.
func DialPipe(context.Context, string) (net.Conn, error) {
	return nil, fmt.Errorf("server: %w", ErrNoPipes)
}
