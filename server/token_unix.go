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
)

// createToken makes a fresh random token for this daemon start and writes it to path, created
// exclusively with mode 0600. A token file left from an earlier start is removed first when we
// own it; one owned by someone else (or that is not a file or symlink) is refused. An existing
// token is never adopted: whoever planted it would otherwise know our token.
func createToken(path string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	if err := removeOwnToken(path); err != nil {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
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
