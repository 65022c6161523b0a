package nav

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// fakeNav answers every question with locs, or says no server serves the file.
type fakeNav struct {
	locs  []Location
	found bool
	err   error
	asked []int // line, column of the last question
}

func (f *fakeNav) Definition(_ context.Context, _ string, line, column int) ([]Location, bool, error) {
	f.asked = []int{line, column}
	return f.locs, f.found, f.err
}

func (f *fakeNav) References(ctx context.Context, abs string, line, column int) ([]Location, bool, error) {
	return f.Definition(ctx, abs, line, column)
}

// findIn is a Finder that looks for "func NAME" in the files it is given.
func findIn(files ...string) Finder {
	return func(_ context.Context, _ *tools.Env, _, symbol string) ([]Location, error) {
		var out []Location
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for i, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "func "+symbol+"(") {
					out = append(out, Location{Path: f, Line: i + 1})
				}
			}
		}
		return out, nil
	}
}

func TestNavigation(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.go")
	b := filepath.Join(dir, "sub", "b.go")
	for p, text := range map[string]string{
		a: "package a\n\nfunc Greet() string { return \"hi\" }\n\nvar x = Greet()\n",
		b: "package sub\n\nvar y = Greet()\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	server := &fakeNav{locs: []Location{{Path: a, Line: 3}, {Path: a, Line: 5}}, found: true}
	cases := []struct {
		name   string
		tool   *Tool
		params map[string]string
		want   []string
		isErr  bool
		asked  []int
	}{
		{"references from the server", NewReferences(server), map[string]string{"path": "a.go", "symbol": "Greet", "line": "5"},
			[]string{"References of `Greet` (2):", "a.go:3: func Greet() string", "a.go:5: var x = Greet()"}, false, []int{5, 9}},
		{"definition from the server", NewDefinition(server, nil), map[string]string{"path": "a.go", "symbol": "Greet"},
			[]string{"Definition of `Greet` (2):"}, false, []int{3, 6}},
		{"definition falls back to the parsed definitions", NewDefinition(&fakeNav{}, findIn(a)), map[string]string{"path": "a.go", "symbol": "Greet", "line": "5"},
			[]string{"No language server answered", "a.go:3: func Greet()"}, false, nil},
		{"without a server or a finder, no definition", NewDefinition(nil, nil), map[string]string{"path": "sub/b.go", "symbol": "Greet"},
			[]string{"No definition of `Greet` found."}, false, nil},
		{"a server that failed says why in the fallback", NewDefinition(&fakeNav{err: errors.New("diagnostics unavailable: it crashed")}, findIn(a)),
			map[string]string{"path": "a.go", "symbol": "Greet"}, []string{"(diagnostics unavailable: it crashed)"}, false, nil},
		{"references need a server", NewReferences(nil), map[string]string{"path": "a.go", "symbol": "Greet"},
			[]string{"No language server runs for a.go", "search_files"}, false, nil},
		{"a symbol not in the file", NewDefinition(server, nil), map[string]string{"path": "a.go", "symbol": "Gree", "line": "3"},
			[]string{"`Gree` does not appear in a.go on line 3"}, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			server.asked = nil
			env := &tools.Env{Files: &toolstest.Files{Dir: dir}, UI: &toolstest.UI{Answer: tools.Answer{Approved: true}}}
			res, err := c.tool.Run(context.Background(), env, tools.Call{Name: c.tool.name(), Params: c.params})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isErr {
				t.Errorf("IsError = %v: %s", res.IsError, res.Text)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
			if c.asked != nil && (len(server.asked) != 2 || server.asked[0] != c.asked[0] || server.asked[1] != c.asked[1]) {
				t.Errorf("asked at %v, want %v", server.asked, c.asked)
			}
		})
	}
}
