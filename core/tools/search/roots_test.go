package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// twoRoots makes a workspace of two roots, app (primary) and lib, each with files holding
// "needle" on n lines.
func twoRoots(t *testing.T, n int) *workspace.Workspace {
	t.Helper()
	tmp := t.TempDir()
	for _, root := range []string{"app", "lib"} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "needle %s %d\n", root, i)
		}
		for _, name := range []string{"a.txt", "sub/b.txt"} {
			p := filepath.Join(tmp, root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ws, err := workspace.New(filepath.Join(tmp, "app"), filepath.Join(tmp, "lib"))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func runSearch(t *testing.T, ws *workspace.Workspace, params map[string]string) string {
	t.Helper()
	res, err := New().Run(context.Background(), &tools.Env{Files: ws, UI: &fakeUI{approve: true}}, tools.Call{Name: Name, Params: params})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %s", err, res.Text)
	}
	return res.Text
}

// TestRunCoversEveryRoot checks that `.` with two roots finds the matches of both, the
// primary's unlabelled and first, the other's as `lib:path`; a subfolder stays one root.
func TestRunCoversEveryRoot(t *testing.T) {
	ws := twoRoots(t, 1)
	got := runSearch(t, ws, map[string]string{"path": ".", "regex": "needle"})
	want := "Found 4 results.\n\n" +
		"a.txt\n│----\n│needle app 0\n│----\n\n" +
		"sub/b.txt\n│----\n│needle app 0\n│----\n\n" +
		"lib:a.txt\n│----\n│needle lib 0\n│----\n\n" +
		"lib:sub/b.txt\n│----\n│needle lib 0\n│----"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := runSearch(t, ws, map[string]string{"path": "lib:sub", "regex": "needle"}); !strings.HasPrefix(got, "Found 1 result.\n\nlib:sub/b.txt\n") {
		t.Errorf("lib:sub searched more than itself:\n%s", got)
	}
	if got := runSearch(t, ws, map[string]string{"path": "sub", "regex": "needle"}); strings.Contains(got, "lib:") {
		t.Errorf("a primary subfolder searched the other root:\n%s", got)
	}
}

// TestInRootsCapIsTotal checks that the result cap counts both roots together: the
// primary's matches come first, the other root fills what is left, and a match beyond the
// cap in a later root still reports "more".
func TestInRootsCapIsTotal(t *testing.T) {
	ws := twoRoots(t, 2)
	var roots []string
	for _, r := range ws.Roots() {
		roots = append(roots, r.Path)
	}
	cases := []struct {
		max, total int
		more       bool
		last       string // the last file kept, relative
	}{
		{max: 3, total: 3, more: true, last: "sub/b.txt"},
		{max: 4, total: 4, more: true, last: "sub/b.txt"},
		{max: 6, total: 6, more: true, last: "lib:a.txt"},
		{max: 8, total: 8, more: false, last: "lib:sub/b.txt"},
		{max: 9, total: 8, more: false, last: "lib:sub/b.txt"},
	}
	for _, c := range cases {
		res, err := InRoots(context.Background(), roots, Options{Regex: "needle", Context: 1, MaxResults: c.max, Tree: ws})
		if err != nil {
			t.Fatal(err)
		}
		last := ws.Rel(res.Files[len(res.Files)-1].Path)
		if res.Total != c.total || res.More != c.more || last != c.last {
			t.Errorf("max %d: total %d more %v last %s, want %d %v %s", c.max, res.Total, res.More, last, c.total, c.more, c.last)
		}
	}
}
