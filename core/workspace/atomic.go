package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data so that a reader sees either the old or the new
// content, never a mix, and a crash leaves one of them on disk: a temp file in the same folder
// (same file system, so rename is atomic), fsync, then rename. The existing file's mode, and
// its owner when we run as root, carry over; a new file gets 0644 less the umask. On any
// failure the old file is untouched and the temp file removed.
//
// A file nobody may write (no write bit, or one the process may not write) is refused with
// ErrReadOnly: the rename needs only the folder's permission and would quietly replace it.
// Root passes every permission check, so the mode bits are looked at directly. Non-regular
// files are refused with ErrNotRegular.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	mode := fs.FileMode(0o644)
	uid, gid := -1, -1
	if st, serr := os.Stat(path); serr == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("write %s: %w", path, notRegular(path, st.Mode()))
		}
		if err := CheckWritable(path, st); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		mode = st.Mode().Perm()
		if u, g, ok := fileOwner(st); ok && os.Geteuid() == 0 {
			uid, gid = u, g
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempMarker+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			// err already says what failed. The half-written temp file is dropped on a best-effort
			// basis: it never held the only copy of anything, and the index sweeps leftovers.
			_ = tmp.Close() // may be closed already
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if uid >= 0 {
		if err = tmp.Chown(uid, gid); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = renameFile(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Make the rename itself durable; a failure here cannot undo the write, so it is ignored.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		closeReadOnly(d)
	}
	return nil
}

// CheckWritable returns an error wrapping ErrReadOnly when the existing file at path (st is its
// stat) may not be written: its mode has no write bit at all, or, for a user other than root,
// the kernel says this process may not write it.
func CheckWritable(path string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s has mode %s: %w", path, st.Mode().Perm(), ErrReadOnly)
	}
	if os.Geteuid() != 0 {
		if denied := accessDenied(path); denied {
			return fmt.Errorf("%s has mode %s: %w", path, st.Mode().Perm(), ErrReadOnly)
		}
	}
	return nil
}

// renameFile is os.Rename; tests swap it to fail the last step, which root cannot be made to
// fail through permissions.
var renameFile = os.Rename

// MkdirAllTracked creates dir and any missing parents like os.MkdirAll, and returns the
// folders it created, outermost first, so a rejected new file can take them away again.
func MkdirAllTracked(dir string) (created []string, err error) {
	dir = filepath.Clean(dir)
	var missing []string
	for cur := dir; ; {
		st, serr := os.Stat(cur)
		if serr == nil {
			if !st.IsDir() {
				return nil, fmt.Errorf("mkdir %s: %w", cur, ErrNotDir)
			}
			break
		}
		if !errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("mkdir %s: %w", dir, serr)
		}
		missing = append(missing, cur)
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		cur = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // made by someone else meanwhile: not ours to remove
		}
		if err != nil {
			RemoveCreated(created)
			return nil, fmt.Errorf("mkdir %s: %w", missing[i], err)
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// RemoveCreated removes folders returned by MkdirAllTracked, innermost first. A folder that is
// no longer empty (someone else put a file there) is left alone; that is not an error.
func RemoveCreated(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		_ = os.Remove(created[i])
	}
}
