package listfiles

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

func twoRootWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	tmp := t.TempDir()
	for _, name := range []string{"app/main.go", "app/src/util.go", "lib/lib.go", "lib/internal/x.go"} {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(filepath.Join(tmp, "app"), filepath.Join(tmp, "lib"))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestRunListsEveryRoot checks that `.` with two roots lists both, the other root's entries
// labelled, flat and recursive, while a subfolder lists only itself.
func TestRunListsEveryRoot(t *testing.T) {
	ws := twoRootWorkspace(t)
	for _, tool := range listTools(t, ws) {
		t.Run(tool.name, func(t *testing.T) { runEveryRoot(t, tool.tool, ws) })
	}
}

func runEveryRoot(t *testing.T, tool *Tool, ws *workspace.Workspace) {
	run := func(params map[string]string) string {
		res, err := tool.Run(context.Background(), &tools.Env{Files: ws, UI: &fakeUI{approve: true}}, tools.Call{Name: Name, Params: params})
		if err != nil || res.IsError {
			t.Fatalf("list: %v %s", err, res.Text)
		}
		return res.Text
	}
	cases := []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"path": ".", "recursive": "true"}, "main.go\nsrc/\nsrc/util.go\nlib:lib.go\nlib:internal/\nlib:internal/x.go"},
		{map[string]string{"path": "."}, "main.go\nsrc/\nlib:lib.go\nlib:internal/"},
		{map[string]string{"path": "src", "recursive": "true"}, "util.go"},
		{map[string]string{"path": "lib:", "recursive": "true"}, "lib.go\ninternal/\ninternal/x.go"},
	}
	for _, c := range cases {
		if got := run(c.params); got != c.want {
			t.Errorf("%v: got\n%s\nwant\n%s", c.params, got, c.want)
		}
	}
}

// TestListRootsLimitIsTotal checks that the entry cap counts every root: the other root fills
// what the primary leaves, and entries of a later root beyond the cap mark the listing cut.
func TestListRootsLimitIsTotal(t *testing.T) {
	ws := twoRootWorkspace(t)
	all := []string{"main.go", "src/", "src/util.go", "lib:lib.go", "lib:internal/", "lib:internal/x.go"}
	for limit := 1; limit <= len(all)+1; limit++ {
		got, cut, err := ListRoots(context.Background(), ws, ws.Roots(), true, limit)
		if err != nil {
			t.Fatal(err)
		}
		n := min(limit, len(all))
		if len(got) != n || cut != (limit < len(all)) {
			t.Errorf("limit %d: %v cut=%v", limit, got, cut)
			continue
		}
		// The primary's entries are sorted among themselves; which ones a cut keeps is
		// List's breadth-first choice, so compare as sets per root.
		if !slices.Equal(sorted(got), sorted(firstEntries(t, ws, limit))) {
			t.Errorf("limit %d: %v", limit, got)
		}
	}
}

// firstEntries is what ListRoots should keep under limit, built from List root by root.
func firstEntries(t *testing.T, ws *workspace.Workspace, limit int) []string {
	t.Helper()
	var out []string
	for i, r := range ws.Roots() {
		if limit-len(out) == 0 {
			break
		}
		es, _, err := List(context.Background(), ws, r.Path, true, limit-len(out))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if i > 0 {
				e = r.Name + ":" + e
			}
			out = append(out, e)
		}
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
