package workspace

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/wine"
)

func TestResolve(t *testing.T) {
	base := t.TempDir()
	main, other, outside := filepath.Join(base, "main"), filepath.Join(base, "lib"), filepath.Join(base, "outside")
	tree := map[string]string{
		"main/src/a.go":      "",
		"main/link-in":       "->" + filepath.Join(base, "main", "src"),
		"main/link-out":      "->" + filepath.Join(base, "outside"),
		"main/dangling-out":  "->" + filepath.Join(base, "outside", "new-file"),
		"main/rel-link-out":  "->../outside",
		"lib/pkg/b.go":       "",
		"outside/secret.txt": "",
	}
	if runtime.GOOS != "windows" { // a colon cannot be part of a Windows file name
		tree["main/foo:bar/x.txt"] = ""
	}
	writeTree(t, base, tree)
	ws := newWS(t, main, other)
	tests := []struct {
		in      string
		want    string
		inside  bool
		wantRel string
	}{
		{"src/a.go", "main/src/a.go", true, "src/a.go"},
		{"./src/../src/a.go", "main/src/a.go", true, "src/a.go"},
		{"", "main", true, "."},
		{"src/new/file.go", "main/src/new/file.go", true, "src/new/file.go"},
		{"../outside/secret.txt", "outside/secret.txt", false, ""},
		{"src/../../outside", "outside", false, ""},
		{filepath.Join(base, "outside", "secret.txt"), "outside/secret.txt", false, ""},
		{filepath.Join(main, "src", "a.go"), "main/src/a.go", true, "src/a.go"},
		{"link-in/a.go", "main/src/a.go", true, "src/a.go"},
		{"link-out/secret.txt", "outside/secret.txt", false, ""},
		{"link-out/new/dir/f.txt", "outside/new/dir/f.txt", false, ""},
		{"dangling-out", "outside/new-file", false, ""},
		{"rel-link-out/secret.txt", "outside/secret.txt", false, ""},
		{"lib:pkg/b.go", "lib/pkg/b.go", true, "lib:pkg/b.go"},
		{"lib:../outside", "outside", false, ""},
		{"foo:bar/x.txt", "main/foo:bar/x.txt", true, "foo:bar/x.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if strings.Contains(tc.in, "link") || strings.HasPrefix(tc.in, "dangling") {
				wine.Skip(t, wine.Symlinks)
			}
			if tc.in == "foo:bar/x.txt" && runtime.GOOS == "windows" {
				t.Skip("a folder named foo:bar cannot exist on Windows")
			}
			abs, inside, err := ws.Resolve(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(base, tc.want); abs != want {
				t.Errorf("abs = %s, want %s", abs, want)
			}
			if inside != tc.inside {
				t.Errorf("inside = %v, want %v", inside, tc.inside)
			}
			wantRel := tc.wantRel
			if wantRel == "" {
				wantRel = filepath.ToSlash(abs)
			}
			if got := ws.Rel(abs); got != wantRel {
				t.Errorf("Rel = %q, want %q", got, wantRel)
			}
		})
	}
	if _, _, err := ws.Resolve("a\x00b"); !errors.Is(err, ErrBadPath) {
		t.Errorf("NUL byte: err = %v, want ErrBadPath", err)
	}
	_ = outside
}

func TestNewErrors(t *testing.T) {
	if _, err := New(); !errors.Is(err, ErrNoRoots) {
		t.Errorf("no roots: %v", err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f": ""})
	if _, err := New(filepath.Join(dir, "f")); !errors.Is(err, ErrNotDir) {
		t.Errorf("file root: %v", err)
	}
	if _, err := New(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing root accepted")
	}
}

func TestRootsAreResolved(t *testing.T) {
	wine.Skip(t, wine.Symlinks)
	base := t.TempDir()
	writeTree(t, base, map[string]string{"real/a": "", "alias": "->" + filepath.Join(base, "real")})
	ws := newWS(t, filepath.Join(base, "alias"))
	if got, want := ws.Root(), filepath.Join(base, "real"); got != want {
		t.Errorf("Root = %s, want %s", got, want)
	}
	// A caller holding the unresolved path still gets a root-relative display path.
	if got := ws.Rel(filepath.Join(base, "alias", "a")); got != "a" {
		t.Errorf("Rel through the alias = %q", got)
	}
}
