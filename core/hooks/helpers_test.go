package hooks

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// fixedNow is the clock of every test runner: inputs are byte-stable.
func fixedNow() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }

// writeHook writes an executable hook script into dir and returns its path. The scripts are
// POSIX shell: on Windows the tests that use them are skipped (files_test.go covers Windows'
// hook files).
func writeHook(t *testing.T, dir string, k Kind, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hook scripts of this test are POSIX shell scripts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, string(k))
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// trustAll enables hooks in every scope found and trusts every hook as it is now.
func trustAll(t *testing.T, s *Store, roots []string, global string) {
	t.Helper()
	hs, err := Discover(roots, global)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range Scopes(hs) {
		if err := s.SetEnabled(sc, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hs {
		if _, err := s.Trust(h, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// newRunner returns a runner over one workspace root with an in-memory store.
func newRunner(t *testing.T, root, global string, timeout time.Duration) (*Runner, *Store) {
	t.Helper()
	s, err := OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	return NewRunner(Options{Store: s, Roots: []string{root}, GlobalDir: global, TaskID: "task-1", Version: "test",
		Timeout: timeout, Now: fixedNow}), s
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
