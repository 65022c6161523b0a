//go:build windows

package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// writeToken writes this daemon start's token to path (in the data dir, inside the user's
// profile), created exclusively with a DACL that lets only the current user read it: mode bits
// mean nothing on Windows. A token file left from an earlier start is removed first when we own
// it; one owned by someone else is refused, never adopted.
func writeToken(path, tok string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	if err := removeOwnToken(path); err != nil {
		return err
	}
	sa, err := userOnlyAttributes("FA")
	if err != nil {
		return err
	}
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	h, err := windows.CreateFile(name, windows.GENERIC_WRITE, 0, sa, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		// Someone created the file between our remove and our create: refuse it as well.
		return fmt.Errorf("server: token: %w", err)
	}
	f := os.NewFile(uintptr(h), path)
	if _, err := f.WriteString(tok + "\n"); err != nil {
		return fmt.Errorf("server: token: %w", errors.Join(err, f.Close()))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	return nil
}

// removeOwnToken removes an old token file that belongs to this user.
func removeOwnToken(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("server: %w: %s is not a regular file", ErrTokenFile, path)
	}
	mine, err := ownedByCurrentUser(path)
	if err != nil {
		return err
	}
	if !mine {
		return fmt.Errorf("server: %w: %s belongs to another user", ErrTokenFile, path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("server: token: %w", err)
	}
	return nil
}
