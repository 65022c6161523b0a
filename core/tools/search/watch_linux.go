//go:build linux

package search

import (
	"errors"
	"syscall"
)

// treeWatch tells whether anything changed in the folders it watches, with inotify: the
// kernel queues an event as a change happens, and changed reads the queue without waiting,
// so a change made before a search began is always seen by that search.
type treeWatch struct {
	fd  int
	buf []byte
}

const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_ATTRIB | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF

// newTreeWatch returns a watch, or nil where inotify is not available.
func newTreeWatch() *treeWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	return &treeWatch{fd: fd, buf: make([]byte, 64<<10)}
}

// add watches one folder; false means it cannot be watched (the limit of watches reached).
func (w *treeWatch) add(dir string) bool {
	_, err := syscall.InotifyAddWatch(w.fd, dir, watchMask)
	return err == nil
}

// changed drains the queue and reports whether it held any event (an overflow included).
// A read error other than "nothing queued" also counts as a change: the caller walks.
func (w *treeWatch) changed() bool {
	seen := false
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			return seen
		}
		if err != nil || n <= 0 {
			return true
		}
		// Every event counts, even IN_IGNORED for a folder removed: the list is stale.
		seen = true
	}
}

func (w *treeWatch) close() error {
	return syscall.Close(w.fd)
}
