package server

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSocketBornPrivate: on Linux the socket's file is 0600 from the bind itself, before any
// chmod, in a folder everyone may enter, so the starters need no private folder to bind in.
func TestSocketBornPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "daemon.sock")
	lis, err := listenNarrow(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lis.Close() })
	wantPrivateSocket(t, sock)
}
