package workspace

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// TestPatternLiteral pins the literal a gitignore pattern's matches must contain.
func TestPatternLiteral(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"*.tmp", ".tmp"},
		{"generated/", "generated"},
		{"/build", "build"},
		{"!keep.log", "keep.log"},
		{"docs/**/*.md", "docs"},
		{"a[bc]defg?h", "defg"},
		{"**", ""},
		{`\#file`, ""},
		{"x[", ""},
		{"  spaced  ", "spaced"},
	} {
		if got := patternLiteral(tc.pattern); got != tc.want {
			t.Errorf("patternLiteral(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

// TestRuleMatchesLibrary checks the literal shortcut never changes a verdict of the library.
func TestRuleMatchesLibrary(t *testing.T) {
	patterns := []string{
		"*.tmp", "generated/", "/build", "!keep.tmp", "docs/**/*.md", "a[bc]d", "**/cache",
		"src/*.go", "node_modules", "?oo", "logs/**", "*", "foo/bar/", "[Tt]est*",
	}
	paths := [][]string{
		{"x.tmp"}, {"keep.tmp"}, {"generated"}, {"a", "generated"}, {"build"}, {"a", "build"},
		{"docs", "x", "y.md"}, {"docs", "y.md"}, {"abd"}, {"acd"}, {"aed"}, {"a", "cache"},
		{"src", "main.go"}, {"src", "a", "main.go"}, {"node_modules", "m"}, {"foo"}, {"boo"},
		{"logs", "a"}, {"foo", "bar"}, {"Test1"}, {"test"}, {"x", "foo", "bar"}, {"plain.go"},
	}
	for _, domain := range [][]string{nil, {"x"}} {
		for _, pat := range patterns {
			lib := gitignore.ParsePattern(pat, domain)
			fast := newRule(pat, domain)
			for _, p := range paths {
				p = append(slices.Clone(domain), p...)
				for _, isDir := range []bool{false, true} {
					if got, want := fast.Match(p, isDir), lib.Match(p, isDir); got != want {
						t.Errorf("%q on %v (dir %v): got %v, library says %v", pat, p, isDir, got, want)
					}
				}
			}
		}
	}
}

// TestIndexEntriesAsSlowPath checks the shared-buffer entries of a scan equal what entryFor
// builds path by path, for one root and for the second root of a workspace (its "name:"
// prefix is not a tail of the absolute path), upper-case names included.
func TestIndexEntriesAsSlowPath(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	tree := map[string]string{
		"Main.go": "", "lib/Util.go": "", "lib/deep/x.txt": "", "UPPER/": "", "lower/a": "",
	}
	writeTree(t, a, tree)
	writeTree(t, b, tree)
	ws := newWS(t, a, b)
	ix, err := NewIndex(context.Background(), ws, testLists(t))
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, ix)
	flat := ix.snapshot()
	// Per root: Main.go lib/ lib/Util.go lib/deep/ lib/deep/x.txt UPPER/ lower/ lower/a.
	if len(flat) != 16 {
		t.Errorf("%d entries, want 16", len(flat))
	}
	var rels []string
	for _, e := range flat {
		if want := ix.entryFor(e.abs, e.isDir); e != want {
			t.Errorf("entry %+v, want %+v", e, want)
		}
		rels = append(rels, e.rel)
	}
	if !slices.Contains(rels, "lib/deep/") || !slices.Contains(rels, filepath.Base(b)+":UPPER/") {
		t.Errorf("rels = %v", rels)
	}
}
