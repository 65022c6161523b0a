package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// readChunk is how much ReadRegular reads between two looks at the context.
const readChunk = 256 << 10

// OpenRegular opens path for reading only if it is a regular file (symlinks followed).
// FIFOs, sockets and devices are refused with an error wrapping ErrNotRegular, and nothing
// about them can block: the path is checked with stat first, then opened with O_NONBLOCK (so a
// FIFO swapped in meanwhile does not wait for a writer) and checked again on the open file
// descriptor, which is what is actually read. The caller closes the file.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // a socket appeared where the file was
			return nil, nil, fmt.Errorf("open %s: %w", path, ErrNotRegular)
		}
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		closeReadOnly(f)
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		closeReadOnly(f)
		return nil, nil, notRegular(path, st.Mode())
	}
	return f, st, nil
}

// ReadRegular returns the content of the regular file at path, reading at most limit bytes
// whatever size the file claims: files under /proc say 0 and hold more, a file that grows while
// it is read is cut off. More than limit bytes gives ErrTooLarge. The read stops when ctx ends.
func ReadRegular(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer closeReadOnly(f)
	if st.Size() > limit {
		return nil, fmt.Errorf("read %s (%d bytes): %w", path, st.Size(), ErrTooLarge)
	}
	// Size+1 so that a file read whole meets EOF without growing the buffer.
	buf := make([]byte, 0, min(st.Size(), limit)+1)
	for {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", path, context.Cause(ctx))
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(max(len(buf), 512), readChunk))
		}
		room := min(cap(buf)-len(buf), readChunk)
		n, err := f.Read(buf[len(buf) : len(buf)+room])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("read %s: %w", path, ErrTooLarge)
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// closeReadOnly closes a file or folder that was only read from. Its error is dropped on
// purpose: nothing was written through it, so a failed close cannot lose data.
func closeReadOnly(f *os.File) { _ = f.Close() }

// notRegular names the kind of file in the error, so a tool can tell the model what it met.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s: %w", path, FileKind(m), ErrNotRegular)
}

// FileKind describes a file mode in words ("a named pipe (FIFO)", "a device", ...).
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}
