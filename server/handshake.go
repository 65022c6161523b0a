package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// HandshakeFileName is the file in the data dir through which later clients (other windows,
// `cairn run --connect`) find the running daemon.
const HandshakeFileName = "daemon.json"

// HandshakePath returns the handshake file of a data dir.
func HandshakePath(dataDir string) string { return filepath.Join(dataDir, HandshakeFileName) }

// writeHandshakeFile writes the handshake's line atomically (a file of its own renamed over the old one), 0600, so
// a reader never sees half a file; that file is the spare a stopped daemon left when there is
// one (reuseSpareHandshake), else a new one. It is not synced: after a power loss the daemon is gone
// anyway, and an empty or stale file only means "no daemon" to a reader.
// It returns the file's identity, which removeHandshakeFile checks, and, in left, a spare it
// declined and could not remove (the handshake is written all the same).
func writeHandshakeFile(path string, line []byte) (_ os.FileInfo, left, err error) {
	fi, ok, left := reuseSpareHandshake(path, line)
	if ok {
		return fi, nil, nil
	}
	fi, err = writeNewHandshakeFile(path, line)
	return fi, left, err
}

// writeNewHandshakeFile writes b to a new file renamed to path.
func writeNewHandshakeFile(path string, b []byte) (os.FileInfo, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".daemon-*.json")
	if err != nil {
		return nil, fmt.Errorf("server: handshake file: %w", err)
	}
	tmp := f.Name()
	fail := func(err error) (os.FileInfo, error) {
		err = errors.Join(err, f.Close(), os.Remove(tmp))
		return nil, fmt.Errorf("server: handshake file: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := f.Write(b); err != nil {
		return fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("server: handshake file: %w", errors.Join(err, os.Remove(tmp)))
	}
	return fi, nil
}

// line is h as one line of JSON, as json.Marshal writes it (TestHandshakeLine holds the two
// alike), spelt out field by field: the first json.Marshal of a type builds its encoder by
// reflection, which cost a start a tenth of a millisecond (docs/performance.md, "P5 — the
// daemon at rest"). A string that is not UTF-8 is an error: JSON would carry it with U+FFFD
// for its bad bytes, naming a path that is not there.
func (h Handshake) line() ([]byte, error) {
	b := make([]byte, 0, 256)
	var errs []error
	str := func(name, key, v string) {
		b = append(b, key...)
		var err error
		if b, err = jsontext.AppendQuote(b, v); err != nil {
			errs = append(errs, fmt.Errorf("server: the handshake's %s %q cannot be written as JSON: %w", name, v, err))
		}
	}
	str("address", `{"address":`, h.Address)
	str("token file", `,"token_file":`, h.TokenFile)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(h.PID), 10)
	str("version", `,"version":`, h.Version)
	if h.Executable != "" {
		str("executable", `,"executable":`, h.Executable)
	}
	return append(b, "}\n"...), errors.Join(errs...)
}

// ReadHandshakeFile reads a handshake file.
func ReadHandshakeFile(path string) (Handshake, error) {
	var h Handshake
	b, err := os.ReadFile(path)
	if err != nil {
		return h, fmt.Errorf("server: handshake file: %w", err)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("server: handshake file %s: %w", path, err)
	}
	if h.Address == "" || h.TokenFile == "" {
		return h, fmt.Errorf("server: handshake file %s lacks address or token_file", path)
	}
	return h, nil
}

// FindDaemon returns the handshake of the daemon serving dataDir when its process is alive, or
// ErrNoDaemon. The caller still has to prove it with an authenticated call: a pid can be reused.
func FindDaemon(dataDir string) (Handshake, error) {
	h, err := ReadHandshakeFile(HandshakePath(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return h, fmt.Errorf("server: %w for %s", ErrNoDaemon, dataDir)
	}
	if err != nil {
		return h, err
	}
	if !processAlive(h.PID) {
		return h, fmt.Errorf("server: %w for %s (pid %d is gone)", ErrNoDaemon, dataDir, h.PID)
	}
	return h, nil
}

// removeHandshakeFile takes path away (retireHandshakeFile) if it is still the file this daemon
// wrote (mine, saying want): a later daemon may have replaced it.
func removeHandshakeFile(path string, mine os.FileInfo, want Handshake) error {
	now, err := os.Lstat(path)
	if err != nil || !sameFile(now, mine) {
		return nil
	}
	if got, err := ReadHandshakeFile(path); err != nil || got != want {
		return nil
	}
	if err := retireHandshakeFile(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("server: handshake file: %w", err)
	}
	return nil
}

// sameFile reports whether two stats are of one file. The inode alone is not enough: the next
// daemon's file can get the inode number of one just removed; its modification time differs.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime())
}
