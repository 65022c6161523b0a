package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/internal/wine"
)

func TestFuzzyScoreRanking(t *testing.T) {
	// Each case: the first path must outrank the second for the query.
	tests := []struct {
		q             string
		better, worse string
	}{
		{"main", "cmd/main.go", "domain/aim/nothing.go"},
		{"index", "src/index.ts", "src/internal/dex.ts"},
		{"wsgo", "core/workspace/ws.go", "core/workspace/walk/so.go"},
		{"util", "pkg/util.go", "util/other/thing.go"},
		{"ab", "x/ab.go", "x/a_b.go"},
		{"readme", "README.md", "docs/read/me.txt"},
		{"tsconf", "tsconfig.json", "tests/con/f.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			b, okb := score(tc.better, tc.q)
			w, okw := score(tc.worse, tc.q)
			if !okb || !okw {
				t.Fatalf("both should match: %v %v", okb, okw)
			}
			if b <= w {
				t.Errorf("%s scored %d, not above %s (%d)", tc.better, b, tc.worse, w)
			}
		})
	}
	if _, ok := score("abc/def.go", "fed"); ok {
		t.Error("out-of-order letters matched")
	}
}

func score(path, q string) (int, bool) {
	lower := asciiLower(path)
	base := 0
	if i := lastSlash(path); i >= 0 {
		base = i + 1
	}
	return fuzzyScore(path, lower, base, asciiLower(q))
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func TestIndexQuery(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":           "*.gen.go\n",
		"core/workspace/ws.go": "", "core/workspace/index.go": "", "core/msg/msg.go": "",
		"node_modules/index.js": "", "x.gen.go": "", ".git/index": "", "docs/index.md": "",
	})
	ix, err := NewIndex(context.Background(), newWS(t, root), testLists(t))
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, ix)
	got := rels(ix.Query("index", 3))
	// Both are file-name prefix matches; the shorter path wins the tie.
	want := []string{"docs/index.md", "core/workspace/index.go"}
	if !slices.Equal(got, want) {
		t.Errorf("Query(index) = %q, want %q", got, want)
	}
	if got := rels(ix.Query("wspace", 1)); !slices.Equal(got, []string{"core/workspace/"}) {
		t.Errorf("Query(wspace) = %q", got)
	}
	if got := ix.Query("gen", 0); len(got) != 0 {
		t.Errorf("gitignored file indexed: %q", rels(got))
	}
	if got := rels(ix.Query("", 2)); !slices.Equal(got, []string{".gitignore", "core/"}) {
		t.Errorf("empty query = %q", got)
	}
}

func TestIndexFollowsChanges(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a/old.txt": "", "b/keep.txt": ""})
	ix, err := NewIndex(context.Background(), newWS(t, root), testLists(t))
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, ix)
	if !ix.lists[0].Complete() {
		t.Skip("no fsnotify watcher on this system")
	}
	has := func(rel string) func() bool {
		return func() bool { return slices.Contains(rels(ix.Query("", 1000)), rel) }
	}
	not := func(f func() bool) func() bool { return func() bool { return !f() } }

	writeTree(t, root, map[string]string{"c/d/new.txt": ""})
	waitFor(t, "new nested file", has("c/d/new.txt"))

	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "z")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "renamed folder", func() bool { return has("z/old.txt")() && !has("a/old.txt")() })

	wine.Skip(t, wine.RemoveWatched)
	if err := os.RemoveAll(filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "removed folder", not(has("c/d/new.txt")))

	writeTree(t, root, map[string]string{".gitignore": "keep.txt\n"})
	waitFor(t, "gitignore rescan", not(has("b/keep.txt")))
}

// waitFor polls until cond holds. The deadline only bounds a failing test; a passing one
// returns as soon as the watcher delivered.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never observed", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func rels(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Rel
	}
	return out
}
