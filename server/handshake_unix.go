//go:build unix

package server

import (
	"fmt"
	"os"
	"path/filepath"
)

// spareHandshakeName is the file a stopping daemon moves its handshake file to, instead of
// removing it, so the next start on the data dir writes into that file rather than creating
// one: on some file systems creating a file costs more than the rest of a start
// (docs/performance.md, "P5 — the daemon at rest").
const spareHandshakeName = ".daemon.spare"

// reuseSpareHandshake writes content into the spare an earlier daemon left beside path and
// moves it to path, reporting whether it did, with the file's identity. It first renames the
// spare to a name of this process's own, so two starts never write into one file; what it
// then declines (see overwriteOwn) it removes, and a removal that fails is returned as left,
// for the caller to log: nothing is lost, but a file stays beside the handshake. A reader of
// path sees the old file, none, or this whole one, as with a new file renamed into place.
func reuseSpareHandshake(path string, content []byte) (fi os.FileInfo, ok bool, left error) {
	dir := filepath.Dir(path)
	mine := filepath.Join(dir, fmt.Sprintf(".daemon-%d.json", os.Getpid()))
	if os.Rename(filepath.Join(dir, spareHandshakeName), mine) != nil {
		return nil, false, nil // none, or another start took it
	}
	fi, ok = overwriteOwn(mine, content)
	if ok && os.Rename(mine, path) == nil {
		return fi, true, nil
	}
	// Not a file this daemon may use: it goes, in a folder that is ours, and the handshake is
	// written afresh.
	if err := os.Remove(mine); err != nil {
		return nil, false, fmt.Errorf("server: a spare handshake file that could not be used: %w", err)
	}
	return nil, false, nil
}

// retireHandshakeFile takes a stopping daemon's handshake file away from path, keeping it as
// the next start's spare; it falls back to removing it.
func retireHandshakeFile(path string) error {
	if os.Rename(path, filepath.Join(filepath.Dir(path), spareHandshakeName)) == nil {
		return nil
	}
	return os.Remove(path)
}
