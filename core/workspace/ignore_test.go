package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestWalkIgnoreRules(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opts  FilterOptions
		want  []string
	}{
		{
			name:  "negation",
			files: map[string]string{".gitignore": "*.log\n!keep.log\n", "a.log": "", "keep.log": "", "x.go": ""},
			opts:  SearchOptions,
			want:  []string{"keep.log", "x.go"},
		},
		{
			name: "nested gitignore applies below its folder only",
			files: map[string]string{
				"sub/.gitignore": "*.txt\n", "a.txt": "", "sub/b.txt": "", "sub/deep/c.txt": "", "sub/d.go": "",
			},
			opts: SearchOptions,
			want: []string{"a.txt", "sub/", "sub/d.go", "sub/deep/"},
		},
		{
			name: "nested negation overrides the parent",
			files: map[string]string{
				".gitignore": "*.gen\n", "a.gen": "", "sub/.gitignore": "!keep.gen\n", "sub/keep.gen": "", "sub/x.gen": "",
			},
			opts: SearchOptions,
			want: []string{"sub/", "sub/keep.gen"},
		},
		{
			name:  "directory-only pattern spares a file of that name",
			files: map[string]string{".gitignore": "logs/\n", "logs/a": "", "src/logs": "", "src/x/logs/b": ""},
			opts:  SearchOptions,
			want:  []string{"src/", "src/logs", "src/x/"},
		},
		{
			name: "anchored patterns",
			files: map[string]string{
				".gitignore": "/top.txt\ndocs/gen.md\n", "top.txt": "", "sub/top.txt": "", "docs/gen.md": "", "sub/docs/gen.md": "",
			},
			opts: SearchOptions,
			want: []string{"docs/", "sub/", "sub/docs/", "sub/docs/gen.md", "sub/top.txt"},
		},
		{
			name:  "double star",
			files: map[string]string{".gitignore": "**/cache/*.bin\n", "a/b/cache/x.bin": "", "a/b/cache/y.txt": "", "cache/z.bin": ""},
			opts:  SearchOptions,
			want:  []string{"a/", "a/b/", "a/b/cache/", "a/b/cache/y.txt", "cache/"},
		},
		{
			name:  "dot ignore files count for search, not for listing",
			files: map[string]string{".ignore": "gen.go\n", "gen.go": "", "main.go": ""},
			opts:  SearchOptions,
			want:  []string{"main.go"},
		},
		{
			name: "search skips hidden entries but not build folders",
			files: map[string]string{
				".env": "", ".config/x": "", "build/main.go": "", "node_modules/m.js": "", "src/a.go": "",
			},
			opts: SearchOptions,
			want: []string{"build/", "build/main.go", "node_modules/", "node_modules/m.js", "src/", "src/a.go"},
		},
		{
			name: "listing skips build folders and hidden folders, keeps dot files",
			files: map[string]string{
				".env": "", ".config/x": "", "build/main.go": "", "node_modules/m.js": "", "vendor/v.go": "",
				".venv/lib": "", "src/a.go": "", "src/target/t": "",
			},
			opts: ListOptions,
			want: []string{".env", "src/", "src/a.go"},
		},
		{
			name: "user ignore with include hides entries from walks",
			files: map[string]string{
				".cairnignore": "secret/\n!include rules/extra.txt\n", "rules/extra.txt": "*.key\n",
				"secret/a": "", "k/id.key": "", "k/id.pub": "", "rules/": "",
			},
			opts: SearchOptions,
			want: []string{"k/", "k/id.pub", "rules/", "rules/extra.txt"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			ws := newWS(t, root)
			got := visible(t, ws, root, tc.opts)
			if !slices.Equal(got, tc.want) {
				t.Errorf("visible:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestWalkFromSubfolderReadsParentGitignore(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".gitignore": "*.o\n", "pkg/a.o": "", "pkg/a.c": ""})
	ws := newWS(t, root)
	got := visible(t, ws, filepath.Join(root, "pkg"), SearchOptions)
	if want := []string{"pkg/a.c"}; !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestWalkInsideIgnoredFolderNamedExplicitly(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".gitignore": "dist/\n*.map\n", "dist/a.js": "", "dist/a.js.map": "", "dist/sub/b.js": ""})
	ws := newWS(t, root)
	got := visible(t, ws, filepath.Join(root, "dist"), SearchOptions)
	if want := []string{"dist/a.js", "dist/sub/", "dist/sub/b.js"}; !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestIgnored(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".clineignore":    "*.env\n!public.env\n!include .gitignore\n",
		".cairnignore":    "/private/\n",
		".gitignore":      "dist/\n",
		"a.env":           "",
		"public.env":      "",
		"private/p.txt":   "",
		"src/private/ok":  "",
		"dist/bundle.js":  "",
		"src/main.go":     "",
		"notes/readme.md": "",
	})
	ws := newWS(t, root)
	tests := []struct {
		path string
		want bool
	}{
		{"a.env", true},
		{"public.env", false},
		{"private", true},
		{"private/p.txt", true},
		{"src/private/ok", false},
		{"dist/bundle.js", true},
		{"src/main.go", false},
		{".clineignore", true},
		{".cairnignore", true},
		{".", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			abs, _, err := ws.Resolve(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := ws.Ignored(abs); got != tc.want {
				t.Errorf("Ignored(%s) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	if ws.Ignored("/etc/passwd") {
		t.Error("a path outside every root is never user-ignored")
	}
}

func TestIgnoredReloadsOnChange(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "", "inc.txt": "b.txt\n", "b.txt": ""})
	ws := newWS(t, root)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	if ws.Ignored(a) || ws.Ignored(filepath.Join(root, ".clineignore")) {
		t.Fatal("nothing is ignored without an ignore file")
	}
	ign := filepath.Join(root, ".clineignore")
	if err := os.WriteFile(ign, []byte("a.txt\n!include inc.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !ws.Ignored(a) || !ws.Ignored(b) {
		t.Fatal("new ignore file not picked up")
	}
	// Edit the included file only; the stamp (mtime+size) changes, so the rules reload.
	touch(t, filepath.Join(root, "inc.txt"), "nothing-here\n")
	if ws.Ignored(b) {
		t.Error("edit to included file not picked up")
	}
	if err := os.Remove(ign); err != nil {
		t.Fatal(err)
	}
	if ws.Ignored(a) {
		t.Error("removed ignore file still applies")
	}
}

// touch rewrites a file with a distinct modification time, so the reload does not depend on
// the file system's timestamp granularity.
func touch(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}
