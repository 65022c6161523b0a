//go:build unix

package server

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path (created 0600), waiting for it. Daemons
// starting at the same moment hold it only while they check for a stale socket and bind, so
// one cannot remove the socket another has just bound. The returned func releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("server: lock: %w", errors.Join(err, f.Close()))
	}
	return func() {
		// Closing the file releases the lock; the file holds no data, so a failed close
		// loses nothing.
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
