//go:build linux

package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// watchDir waits with inotify for events on path's name in its directory and calls replaced
// once changed confirms one. It reports false when inotify is not available (the caller polls).
func watchDir(ctx context.Context, path string, changed func() bool, replaced func()) bool {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return false
	}
	const mask = syscall.IN_CREATE | syscall.IN_MOVED_TO | syscall.IN_MOVED_FROM | syscall.IN_DELETE |
		syscall.IN_CLOSE_WRITE | syscall.IN_ATTRIB | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	if _, err := syscall.InotifyAddWatch(fd, filepath.Dir(path), mask); err != nil {
		_ = syscall.Close(fd) // nothing was read from it; the caller falls back to polling
		return false
	}
	// Non-blocking, so the runtime's poller waits on it and Close wakes a pending Read.
	f := os.NewFile(uintptr(fd), "inotify")
	name := []byte(filepath.Base(path))
	go func() {
		<-ctx.Done()
		_ = f.Close() // wakes the reader; the watch holds no data
	}()
	go func() {
		buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
		for {
			n, err := f.Read(buf)
			if err != nil {
				return // closed: the daemon is stopping
			}
			if namesFile(buf[:n], name) && changed() {
				replaced()
				return
			}
		}
	}()
	return true
}

// namesFile reports whether a batch of inotify events names name, or concerns the directory
// itself (removed or moved: the name is then gone too).
func namesFile(events, name []byte) bool {
	for len(events) >= syscall.SizeofInotifyEvent {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&events[0]))
		end := syscall.SizeofInotifyEvent + int(ev.Len)
		if end > len(events) {
			return false
		}
		if ev.Mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_Q_OVERFLOW) != 0 {
			return true
		}
		if bytes.Equal(bytes.TrimRight(events[syscall.SizeofInotifyEvent:end], "\x00"), name) {
			return true
		}
		events = events[end:]
	}
	return false
}
