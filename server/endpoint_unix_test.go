//go:build unix

package server

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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
			dir := folder(t, tc.mode)
			if got := privateFolder(dir); got != tc.private {
				t.Fatalf("privateFolder = %v, want %v", got, tc.private)
			}
			sock := filepath.Join(dir, "daemon.sock")
			lis, err := bindPrivate(sock)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = lis.Close() })
			fi, err := os.Lstat(sock)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
				t.Fatalf("socket mode %v, want a 0600 socket", fi.Mode())
			}
			names := namesIn(t, dir)
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

// TestStartersLock: in a private folder the starters' lock is the folder itself and no lock
// file is made; in a shared one it is the file beside the socket. Either way a second starter
// waits until the first lets go.
func TestStartersLock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mode  os.FileMode
		files []string
	}{
		{"private folder", 0o700, []string{"daemon.sock"}},
		{"shared folder", 0o755, []string{"daemon.sock", "daemon.sock.lock"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := folder(t, tc.mode)
			sock := filepath.Join(dir, "daemon.sock")
			lis, err := bindSocket(sock)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = lis.Close() })
			names := namesIn(t, dir)
			if !slices.Equal(names, tc.files) {
				t.Fatalf("folder holds %v, want %v", names, tc.files)
			}

			unlock, err := lockStarters(sock)
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan func(), 1)
			go func() {
				second, err := lockStarters(sock)
				if err != nil {
					t.Error(err)
					second = func() {}
				}
				got <- second
			}()
			select {
			case second := <-got:
				second()
				t.Fatal("a second starter took the lock the first holds")
			case <-time.After(100 * time.Millisecond):
			}
			unlock()
			select {
			case second := <-got:
				second()
			case <-time.After(10 * time.Second):
				t.Fatal("the second starter did not get the lock once the first let go")
			}
		})
	}
}

// folder makes a folder with exactly this mode, whatever the umask.
func folder(t *testing.T, mode os.FileMode) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return dir
}

// namesIn lists the names in dir, sorted.
func namesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
