package codedefs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Find looks in the file's own folder first, and in the whole root when that has none.
func TestFind(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a.go":         "package a\n\nfunc Greet() string { return \"hi\" }\n",
		"sub/b.go":     "package sub\n\nvar y = 1\n",
		"sub/c.go":     "package sub\n\ntype Greet struct{}\n",
		"other/d.go":   "package other\n\nfunc use() { _ = 1 }\n",
		".hidden/e.go": "package hidden\n\nfunc Greet() {}\n",
	}
	for p, text := range files {
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	none := func(string) bool { return false }
	cases := []struct {
		name, dir string
		ignored   func(string) bool
		want      []Place
	}{
		{"own folder first", "sub", none, []Place{{filepath.Join(root, "sub", "c.go"), 3}}},
		{"then the root, hidden folders left out", "other", none, []Place{{filepath.Join(root, "a.go"), 3}, {filepath.Join(root, "sub", "c.go"), 3}}},
		{"ignored files left out", "other", func(p string) bool { return filepath.Base(p) == "a.go" }, []Place{{filepath.Join(root, "sub", "c.go"), 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Find(context.Background(), root, filepath.Join(root, c.dir), "Greet", c.ignored)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("Find = %v, want %v", got, c.want)
			}
		})
	}
}
