//go:build unix

package server

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBindPrivate binds the socket in the data dir's kind of folder (0700, this user's) and in
// a folder others may enter: either way the socket is 0600, answers, and nothing else is left
// in the folder.
func TestBindPrivate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    os.FileMode
		private bool
	}{
		{"private folder", 0o700, true},
		{"shared folder", 0o755, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.Mkdir(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			if got := privateFolder(dir); got != tc.private {
				t.Fatalf("privateFolder = %v, want %v", got, tc.private)
			}
			sock := filepath.Join(dir, "daemon.sock")
			lis, err := bindPrivate(sock)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = lis.Close() })
			wantPrivateSocket(t, sock)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"daemon.sock"}) {
				t.Fatalf("folder holds %v, want only the socket", names)
			}
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			_ = c.Close() // a probe: it carried nothing
		})
	}
}

// TestPrivateFolder: only a real folder of this user's that grants others nothing is private.
func TestPrivateFolder(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private := mk("private", 0o700)
	link := filepath.Join(root, "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{private, true},
		{mk("group", 0o710), false},
		{mk("others", 0o701), false},
		{link, false},
		{file, false},
		{filepath.Join(root, "missing"), false},
	} {
		if got := privateFolder(tc.dir); got != tc.want {
			t.Errorf("privateFolder(%s) = %v, want %v", filepath.Base(tc.dir), got, tc.want)
		}
	}
	// Another user's 0700 folder is not ours to bind in (only root can make one here).
	if os.Geteuid() == 0 {
		theirs := mk("theirs", 0o700)
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if privateFolder(theirs) {
			t.Error("privateFolder(theirs) = true, want false")
		}
	}
}

// TestBindSocketFreePath: where a socket is private from its bind and nothing is at its path,
// the bind alone decides between starters: no lock file is made, and a second starter on the
// same path is told a daemon runs only if one answers, else it takes the path over.
func TestBindSocketFreePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "daemon.sock")
	lis, err := bindSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "daemon.sock" {
		t.Fatalf("folder after a free bind holds %v, want only the socket", entries)
	}
	// The first starter's daemon died without removing its socket: the next takes the lock,
	// finds nobody answering and binds anew.
	_ = lis.Close() // SetUnlinkOnClose(false): the file stays, as a killed daemon leaves it
	lis, err = bindSocket(sock)
	if err != nil {
		t.Fatalf("bind over a stale socket: %v", err)
	}
	t.Cleanup(func() { _ = lis.Close() })
	if _, err := os.Stat(sock + ".lock"); err != nil {
		t.Fatalf("a start that found a stale socket took no lock: %v", err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close() // a probe: it carried nothing
}

// wantPrivateSocket fails the test unless sock is a socket file with mode 0600.
func wantPrivateSocket(t *testing.T, sock string) {
	t.Helper()
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket file %v, want a 0600 socket", fi.Mode())
	}
}
