//go:build unix

package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// createToken makes a fresh random token for this daemon start and writes it to path. The file
// an earlier start made is written over when it is still exactly what this function creates
// (ownToken); any other token file left there is removed first when we own it, and one owned
// by someone else (or that is not a file or symlink) is refused; the new file is created
// exclusively with mode 0600. An existing token is never adopted: whoever planted it would
// otherwise know our token.
func createToken(path string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	if f := ownToken(path); f != nil {
		// Same length as the token it replaces: written first and cut after, a reader never
		// finds the file empty.
		_, err := f.WriteString(tok + "\n")
		if err == nil {
			err = f.Truncate(int64(len(tok) + 1))
		}
		if err = errors.Join(err, f.Close()); err != nil {
			return "", fmt.Errorf("server: token: %w", err)
		}
		return tok, nil
	}
	if err := removeOwnToken(path); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		// Someone created the file between our remove and our create: refuse it as well.
		return "", fmt.Errorf("server: token: %w", err)
	}
	// The umask may have narrowed the mode; it can only have removed bits, but be exact.
	if err := f.Chmod(0o600); err != nil {
		return "", fmt.Errorf("server: token: %w", errors.Join(err, f.Close()))
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		return "", fmt.Errorf("server: token: %w", errors.Join(err, f.Close()))
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	return tok, nil
}

// ownToken opens for writing the token file at path when it is still exactly what createToken
// left: a regular file of this user's, 0600, with no other name (a second name could be a link
// someone else reads it by), whose last change was a write of its content, not a change of its
// mode or links (ctime = mtime). A file that was ever readable by others and then narrowed again
// was changed after its last write, so it is replaced, not reused: whoever opened it meanwhile
// would otherwise read every later token through that open file. Writing over it spares a
// start the file system's cost of a new file, up to half a millisecond (docs/performance.md,
// "P5 — the daemon at rest"). Anything else, or a file that changed between the check and the
// open, returns nil.
func ownToken(path string) *os.File {
	var before, opened unix.Stat_t
	if unix.Lstat(path, &before) != nil || !soleOwnFile(&before) {
		return nil
	}
	// O_NOFOLLOW: a symlink put in its place meanwhile is not followed; O_NONBLOCK: nor does
	// a fifo hang the start (it fails the check below).
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	if unix.Fstat(int(f.Fd()), &opened) != nil || !soleOwnFile(&opened) || opened.Dev != before.Dev || opened.Ino != before.Ino {
		// Opened only, nothing written: closing it loses nothing.
		_ = f.Close()
		return nil
	}
	return f
}

// soleOwnFile reports whether st is a regular file of this user's, mode 0600, with one name,
// last changed by a write of its content.
func soleOwnFile(st *unix.Stat_t) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o7777 == 0o600 && int(st.Uid) == os.Geteuid() &&
		st.Nlink == 1 && st.Ctim == st.Mtim
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
