package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name     string
		existing bool
		mode     os.FileMode
		wantMode os.FileMode
	}{
		{"keeps a private mode", true, 0o600, 0o600},
		{"keeps an executable mode", true, 0o755, 0o755},
		{"new file", false, 0, 0o644},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			if tc.existing {
				if err := os.WriteFile(p, []byte("old"), tc.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFileAtomic(p, []byte("new content")); err != nil {
				t.Fatal(err)
			}
			assertFile(t, p, "new content")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			// umask can only take bits away from a new file's default.
			want := platformMode(tc.wantMode)
			if got := st.Mode().Perm(); got != want && (tc.existing || got&^want != 0) {
				t.Errorf("mode = %v, want %v", got, want)
			}
			assertOnly(t, dir, "f.txt")
		})
	}
}

func TestWriteFileAtomicFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk on fire")
	renameFile = func(string, string) error { return boom }
	t.Cleanup(func() { renameFile = os.Rename })
	if err := WriteFileAtomic(p, []byte("new")); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the rename failure", err)
	}
	assertFile(t, p, "old")
	assertOnly(t, dir, "f.txt")
}

func TestWriteFileAtomicReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores folder permissions; TestWriteFileAtomicFailureKeepsOld covers the failure path")
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows ignores a folder's read-only attribute; TestWriteFileAtomicFailureKeepsOld covers the failure path")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Writable again, or t.TempDir cannot remove it.
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Error(err)
		}
	})
	if err := WriteFileAtomic(p, []byte("new")); err == nil {
		t.Fatal("write into a read-only folder succeeded")
	}
	assertFile(t, p, "old")
	assertOnly(t, dir, "f.txt")
}

func TestWriteFileAtomicRefusesFolder(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFileAtomic(dir, []byte("x")); err == nil {
		t.Fatal("wrote over a folder")
	}
}

func TestMkdirAllTracked(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"have/": "", "file": ""})
	created, err := MkdirAllTracked(filepath.Join(base, "have", "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(base, "have", "a"), filepath.Join(base, "have", "a", "b"), filepath.Join(base, "have", "a", "b", "c")}
	if !slices.Equal(created, want) {
		t.Fatalf("created = %q, want %q", created, want)
	}
	// Someone else's file in a created folder keeps that folder (and its parents).
	writeTree(t, base, map[string]string{"have/a/keep.txt": "x"})
	RemoveCreated(created)
	if _, err := os.Stat(filepath.Join(base, "have", "a", "b")); !os.IsNotExist(err) {
		t.Error("empty created folder not removed")
	}
	assertFile(t, filepath.Join(base, "have", "a", "keep.txt"), "x")

	again, err := MkdirAllTracked(filepath.Join(base, "have"))
	if err != nil || len(again) != 0 {
		t.Errorf("existing folder: created=%q err=%v", again, err)
	}
	if _, err := MkdirAllTracked(filepath.Join(base, "file", "sub")); err == nil {
		t.Error("created a folder under a file")
	}
}

func assertFile(t *testing.T, p, want string) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s = %q, want %q", p, got, want)
	}
}

// assertOnly checks that no temp file was left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func TestWriteFileAtomicRefusesReadOnlyFile(t *testing.T) {
	// Run as root too: the mode bits decide, not the kernel's permission check.
	for _, mode := range []os.FileMode{0o444, 0o400, 0o555} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
			if err := WriteFileAtomic(p, []byte("new")); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("err = %v, want ErrReadOnly", err)
			}
			assertFile(t, p, "old")
			assertOnly(t, dir, "f.txt")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if want := platformMode(mode); st.Mode().Perm() != want {
				t.Errorf("mode = %v, want %v unchanged", st.Mode().Perm(), want)
			}
		})
	}
}

// platformMode is the mode a file set to m shows on this platform. Windows keeps one bit of
// it, the read-only attribute: a file is rw-rw-rw- or r--r--r--, whatever else m asked for.
func platformMode(m os.FileMode) os.FileMode {
	if runtime.GOOS != "windows" {
		return m
	}
	if m&0o200 != 0 {
		return 0o666
	}
	return 0o444
}
