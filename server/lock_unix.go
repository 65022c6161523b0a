//go:build unix

package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockStarters takes the starters' lock of the socket sock, waiting for it. Daemons starting at
// the same moment hold it only while they check for a stale socket and bind (and a stopping one
// while it removes its socket), so one cannot remove the socket another has just bound. In a
// folder only this user may enter (the data dir, where the socket lives by default) the lock is
// the folder itself: nobody else can open it to hold the lock, and no lock file has to be
// created, which on a first start is one file fewer (docs/performance.md, "P5 — the daemon at
// rest"). Anywhere else it is the file sock.lock, since anyone who may open a shared folder
// could hold a lock on it. The returned func releases it.
func lockStarters(sock string) (func(), error) {
	if privateFolder(filepath.Dir(sock)) {
		return lock(filepath.Dir(sock), os.O_RDONLY|syscall.O_DIRECTORY)
	}
	return lock(sock+".lock", os.O_RDWR|os.O_CREATE)
}

// lock opens path with flag (a file is created 0600) and takes an exclusive advisory lock on it,
// waiting for it.
func lock(path string, flag int) (func(), error) {
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("server: lock: %w", errors.Join(err, f.Close()))
	}
	return func() {
		// Closing the file releases the lock; nothing was written through it, so a failed
		// close loses nothing.
		_ = f.Close()
	}, nil
}

// processAlive reports whether a process with this pid exists (signal 0 probes without
// delivering anything; EPERM means it exists but is not ours).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
