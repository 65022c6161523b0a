//go:build windows

package search

import (
	"errors"
	"io"
	"os"
	"slices"
)

// readInto reads path into buf (grown as needed). Windows has no cheap raw open/read path
// like the Unix one, so it reads through os.File, sizing the buffer from the file's stat.
func readInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened read-only: a failed close loses nothing
	if cap(buf) < minBuf {
		buf = make([]byte, 0, minBuf)
	}
	buf = buf[:0]
	if st, err := f.Stat(); err == nil && int(st.Size()) >= cap(buf) {
		buf = slices.Grow(buf, int(st.Size())+1)
	}
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
	}
}
