package hooks

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
)

// pathEnv names the environment variable that tells a hook where its file is. The hook runs
// from a private copy (privateCopy), so $0 names the copy; a hook that finds files next to
// itself reads this instead.
const pathEnv = "CAIRN_HOOK_PATH"

// hookCopy is the private copy one run of a hook executes.
type hookCopy struct {
	// path is the copy's file; dir is the directory made for it alone.
	path, dir string
}

// privateCopy writes content, the bytes that were just checked against the trust record, to a
// file of its own for running. Running that file instead of the hook's path is what makes
// trusting by content hold: a hook file replaced after the check is never what runs (README,
// Security: "Hooks run only when trusted, by content").
//
// The copy sits in a new directory that only this user can open (0700, a random name) and is
// named as the hook's file is: on Windows its extension still picks cmd.exe or PowerShell, and
// a script that prints its own file name prints the same name. The caller removes it after
// the run (hookCopy.remove), however the run ended.
func privateCopy(h Hook, content []byte) (*hookCopy, error) {
	dir, err := os.MkdirTemp("", "cairn-hook-")
	if err != nil {
		return nil, fmt.Errorf("hooks: making a private copy of the hook: %w", err)
	}
	c := &hookCopy{dir: dir, path: filepath.Join(dir, filepath.Base(h.Path))}
	if err := writeExecutable(c.path, content); err != nil {
		return nil, errors.Join(fmt.Errorf("hooks: making a private copy of the hook: %w", err), os.RemoveAll(dir))
	}
	return c, nil
}

// writeExecutable creates path, executable by its owner only, with content. The file is open
// for writing only while syscall.ForkLock is held for reading: a process another goroutine
// starts meanwhile cannot inherit the write descriptor, which would keep Linux from executing
// the file ("text file busy") until that process execs.
func writeExecutable(path string, content []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	return errors.Join(werr, f.Close())
}

// remove deletes the copy and its directory. A copy left behind holds only bytes the user
// trusted, in a directory no other user can open, so a failure is logged, not reported as the
// hook's.
func (c *hookCopy) remove(h Hook) {
	if err := os.RemoveAll(c.dir); err != nil {
		slog.Warn("hooks: could not remove the private copy of a hook", "hook", h.Name, "copy", c.dir, "err", err)
	}
}
