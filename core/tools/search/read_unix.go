//go:build unix

package search

import (
	"slices"
	"syscall"
)

// readInto reads path into buf (grown as needed). It uses raw system calls: os.Open would
// register every file with the runtime poller and allocate a finalizer, which costs more
// than the read itself for the typical small source file. A file that fits the buffer costs
// three calls (open, read, close): a short read of a regular file means its end, so neither
// fstat nor a final zero-length read is needed. Only a file that fills the buffer is sized
// with fstat.
func readInto(path string, buf []byte) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, err
	}
	buf, err = readFD(fd, buf)
	_ = syscall.Close(fd) // opened read-only: a failed close loses nothing
	return buf, err
}

// readFD reads the open file fd to its end into buf, as readInto describes.
func readFD(fd int, buf []byte) ([]byte, error) {
	if cap(buf) < minBuf {
		buf = make([]byte, 0, minBuf)
	}
	buf = buf[:0]
	sized := false
	for {
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			return buf, nil
		}
		// The buffer is full: size it once from fstat, then by doubling if the file grows.
		grow := len(buf)
		if !sized {
			sized = true
			var st syscall.Stat_t
			if err := syscall.Fstat(fd, &st); err == nil && int(st.Size) >= len(buf) {
				grow = int(st.Size) - len(buf) + 1 // +1 so the end shows as a short read
			}
		}
		buf = slices.Grow(buf, grow)
	}
}

func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
