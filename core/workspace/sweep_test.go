package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestIsTempName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".main.go.cairn-123456", true},
		{".a.cairn-1", true},
		{".x.cairn-2.cairn-33", true},
		{".main.go.cairn-", false},        // no digits
		{".main.go.cairn-12a", false},     // not only digits
		{"main.go.cairn-123", false},      // no leading dot
		{"..cairn-123", false},            // no target name
		{".cairn-123", false},             // no target name
		{".main.go.cairn-123.bak", false}, // something after the digits
		{".main.go.cairnx-123", false},    // another marker
		{".main.go.tmp-123", false},       // someone else's temp file
		{".env", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isTempName(tc.name); got != tc.want {
				t.Errorf("isTempName(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

// TestIndexSweepsStaleTemps: opening the index removes old temp files of crashed atomic writes
// at any depth, and only those: fresh temp files (a write in progress), look-alikes and
// folders stay.
func TestIndexSweepsStaleTemps(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"main.go":                   "package main",
		".main.go.cairn-4242":       "stale",
		"src/lib.go":                "package lib",
		"src/.lib.go.cairn-17":      "stale",
		"src/.lib.go.cairn-99":      "fresh",
		"src/.lib.go.cairn-abc":     "look-alike",
		"src/.lib.go.tmp-17":        "someone else's",
		"src/.dir.cairn-5/":         "",
		"notes/.todo.md.cairn-1234": "stale",
	})
	old := time.Now().Add(-2 * StaleTempAge)
	for _, name := range []string{".main.go.cairn-4242", "src/.lib.go.cairn-17", "src/.lib.go.cairn-abc",
		"src/.lib.go.tmp-17", "src/.dir.cairn-5", "notes/.todo.md.cairn-1234"} {
		if err := os.Chtimes(filepath.Join(root, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := NewIndex(context.Background(), newWS(t, root), testLists(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, ix) })

	var left []string
	err = filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"main.go", "notes", "src", "src/.dir.cairn-5", "src/.lib.go.cairn-99",
		"src/.lib.go.cairn-abc", "src/.lib.go.tmp-17", "src/lib.go"}
	if !slices.Equal(left, want) {
		t.Errorf("left on disk:\n%q\nwant\n%q", left, want)
	}
	for _, m := range ix.Query("cairn-17", 0) {
		t.Errorf("a removed temp file is indexed: %s", m.Rel)
	}
}
