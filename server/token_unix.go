//go:build unix

package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// writeToken writes this daemon start's token to path with mode 0600. The token file an earlier
// start left, a regular file of ours with one link that grants nobody else anything, is written
// over in place: creating a file costs some file systems more
// than the rest of a start (docs/performance.md, "P5 — the daemon at rest"). Anything else at
// path is removed first when we own it, and the token created exclusively; a file owned by
// someone else (or that is not a file or symlink) is refused. An existing token is never
// adopted: whoever planted it would otherwise know our token.
func writeToken(path, tok string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	if _, ok := overwriteOwn(path, []byte(tok+"\n")); ok {
		return nil
	}
	if err := removeOwnToken(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		// Someone created the file between our remove and our create: refuse it as well.
		return fmt.Errorf("server: token: %w", err)
	}
	// The umask may have narrowed the mode; it can only have removed bits, but be exact.
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("server: token: %w", errors.Join(err, f.Close()))
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		return fmt.Errorf("server: token: %w", errors.Join(err, f.Close()))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	return nil
}

// overwriteOwn writes content over the file at path and reports whether it did, with the
// file's identity once written: only a regular file of ours, 0600, with no other link, is
// written, so nobody who could read or keep it before gains anything. Not following a symlink
// and not waiting for a FIFO's reader, it opens nothing else.
func overwriteOwn(path string, content []byte) (os.FileInfo, bool) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	fi, err := f.Stat()
	var st *syscall.Stat_t
	if err == nil {
		st, _ = fi.Sys().(*syscall.Stat_t)
	}
	if st == nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || !ownedByMe(fi) || st.Nlink != 1 {
		// Opened to look at it and nothing written: closing it loses nothing.
		_ = f.Close()
		return nil, false
	}
	_, werr := f.WriteAt(content, 0)
	if werr == nil && fi.Size() != int64(len(content)) {
		werr = f.Truncate(int64(len(content)))
	}
	if werr == nil {
		fi, werr = f.Stat()
	}
	if errors.Join(werr, f.Close()) != nil {
		return nil, false
	}
	return fi, true
}

// removeOwnToken removes an old token file (or symlink) that belongs to this user.
func removeOwnToken(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	if !ownedByMe(fi) {
		return fmt.Errorf("server: %w: %s belongs to another user", ErrTokenFile, path)
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("server: %w: %s is not a regular file", ErrTokenFile, path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	return nil
}
