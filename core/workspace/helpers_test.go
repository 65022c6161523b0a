package workspace

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/watch"
)

// linkPrefix marks a tree entry as a symlink to the rest of the value.
const linkPrefix = "->"

// mustClose closes c and fails the test when that reports an error.
func mustClose(tb testing.TB, c io.Closer) {
	tb.Helper()
	if err := c.Close(); err != nil {
		tb.Errorf("close: %v", err)
	}
}

// testHub returns a file watcher closed when the test ends (after what it watches for).
func testHub(tb testing.TB) *watch.Hub {
	hub := watch.New()
	tb.Cleanup(func() {
		if err := hub.Close(); err != nil {
			tb.Errorf("closing the watcher: %v", err)
		}
	})
	return hub
}

// testLists returns file lists watching through a hub of their own, both closed when the
// test ends (the lists first, after what holds them).
func testLists(tb testing.TB) *Lists {
	ls := NewLists(testHub(tb))
	tb.Cleanup(ls.Close)
	return ls
}

// writeTree creates files under root: a key ending in "/" is a folder, a value starting with
// "->" a symlink.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, linkPrefix); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// visible walks root with opts and returns the kept entries, root-relative, folders with "/".
func visible(t *testing.T, ws *Workspace, dir string, opts FilterOptions) []string {
	t.Helper()
	var mu sync.Mutex
	var out []string
	err := ws.Walk(context.Background(), dir, opts, 2, func(path string, d fs.DirEntry, _ *Filter) error {
		rel := ws.Rel(path)
		if d.IsDir() {
			rel += "/"
		}
		mu.Lock()
		out = append(out, rel)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func newWS(t testing.TB, roots ...string) *Workspace {
	t.Helper()
	ws, err := New(roots...)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
