package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A workspace that is itself a git repository, with a nested repository and uncommitted work:
// checkpoints are taken, compared and restored, and neither repository is touched.
func TestUserRepositoriesUntouched(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	userGit(t, ws, "init", "-q")
	writeFiles(t, ws, map[string]string{
		"a.txt":          "one\n",
		"src/main.go":    "package main\n",
		"crlf.txt":       "x\r\ny\r\n",
		".gitattributes": "* text=auto eol=lf\n",
	})
	userGit(t, ws, "add", "-A")
	userGit(t, ws, "commit", "-q", "-m", "init")
	lib := filepath.Join(ws, "lib")
	writeFiles(t, lib, map[string]string{"lib.txt": "lib v1\n"})
	userGit(t, lib, "init", "-q")
	userGit(t, lib, "add", "-A")
	userGit(t, lib, "commit", "-q", "-m", "lib")
	// Uncommitted work: an unstaged edit, a staged new file, an untracked file.
	writeFiles(t, ws, map[string]string{"a.txt": "one, edited by the user\n", "staged.txt": "staged\n", "u.txt": "untracked\n"})
	userGit(t, ws, "add", "staged.txt")

	outerBefore, libBefore := treeHash(t, filepath.Join(ws, ".git")), treeHash(t, filepath.Join(lib, ".git"))

	ctx := context.Background()
	m := newManager(t, ws)
	if strings.HasPrefix(m.Dir(), ws) {
		t.Fatalf("shadow repository %s lies inside the workspace", m.Dir())
	}
	c1 := commit(t, m)
	if got := trackedIn(t, m, c1); !reflect.DeepEqual(got, []string{".gitattributes", "a.txt", "crlf.txt", "src/main.go", "staged.txt", "u.txt"}) {
		t.Fatalf("checkpoint 1 holds %q", got)
	}
	if w := m.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "lib/ is a separate git repository") {
		t.Fatalf("warnings = %q, want one about lib/", w)
	}

	// The agent edits, creates and deletes; the nested repository changes too.
	writeFiles(t, ws, map[string]string{"a.txt": "two\n", "new/new.txt": "new\n", "crlf.txt": "changed\r\n", "lib/lib.txt": "lib v2\n"})
	if err := os.Remove(filepath.Join(ws, "src", "main.go")); err != nil {
		t.Fatal(err)
	}
	c2 := commit(t, m)
	if c2 == c1 {
		t.Fatal("second checkpoint has the first's hash")
	}

	diffs, err := m.Diff(ctx, c1, c2)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileDiff{
		{Path: "a.txt", Before: "one, edited by the user\n", After: "two\n"},
		{Path: "crlf.txt", Before: "x\r\ny\r\n", After: "changed\r\n"},
		{Path: "new/new.txt", After: "new\n"},
		{Path: "src/main.go", Before: "package main\n"},
	}
	if !reflect.DeepEqual(diffs, want) {
		t.Fatalf("Diff(c1, c2) =\n%q\nwant\n%q", diffs, want)
	}

	// Against the working tree: only what changed since c2.
	writeFiles(t, ws, map[string]string{"u.txt": "untracked, edited\n", "later.txt": "later\n"})
	diffs, err = m.Diff(ctx, c2, "")
	if err != nil {
		t.Fatal(err)
	}
	want = []FileDiff{{Path: "later.txt", After: "later\n"}, {Path: "u.txt", Before: "untracked\n", After: "untracked, edited\n"}}
	if !reflect.DeepEqual(diffs, want) {
		t.Fatalf("Diff(c2, working tree) =\n%q\nwant\n%q", diffs, want)
	}

	if err := m.Restore(ctx, c1); err != nil {
		t.Fatal(err)
	}
	wantFiles := map[string]string{
		"a.txt": "one, edited by the user\n", "src/main.go": "package main\n", "crlf.txt": "x\r\ny\r\n",
		"staged.txt": "staged\n", "u.txt": "untracked\n", "lib/lib.txt": "lib v2\n", // nested repo: not restored
	}
	for p, w := range wantFiles {
		if got, ok := readFile(t, ws, p); !ok || got != w {
			t.Errorf("after restore %s = %q (exists %v), want %q", p, got, ok, w)
		}
	}
	for _, p := range []string{"new/new.txt", "new", "later.txt"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("after restore %s still exists", p)
		}
	}
	// Restoring keeps later checkpoints reachable, and the next checkpoint records the restore.
	if d, err := m.Diff(ctx, c1, c2); err != nil || len(d) != 4 {
		t.Fatalf("after restore Diff(c1, c2) = %d files, %v", len(d), err)
	}
	c3 := commit(t, m)
	if c4 := commit(t, m); c4 != c3 {
		t.Fatalf("a checkpoint of an unchanged workspace made a new commit %s after %s", c4, c3)
	}
	if d, err := m.Diff(ctx, c1, c3); err != nil || len(d) != 0 {
		t.Fatalf("Diff(c1, c3 after restore) = %q, %v; want no change", d, err)
	}

	if got := treeHash(t, filepath.Join(ws, ".git")); got != outerBefore {
		t.Error("the workspace's .git folder changed")
	}
	if got := treeHash(t, filepath.Join(lib, ".git")); got != libBefore {
		t.Error("the nested repository's .git folder changed")
	}
	// And the user's view of both repositories is what it was.
	if st := userGit(t, ws, "status", "--porcelain"); st != " M a.txt\nA  staged.txt\n?? lib/\n?? u.txt\n" {
		t.Errorf("user's git status after restore:\n%s", st)
	}
	if st := userGit(t, lib, "status", "--porcelain"); st != " M lib.txt\n" {
		t.Errorf("nested repository's git status:\n%s", st)
	}
}

// Ignore rules decide what a checkpoint holds; restore leaves excluded files alone.
func TestIgnoreRulesAndLargeFiles(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".gitignore":           "secret.env\n",
		"sub/.gitignore":       "*.tmpdata\n",
		".cairnignore":         "private/\n!include extra.ignore\n",
		"extra.ignore":         "generated.go\n",
		"keep.go":              "package keep\n",
		"secret.env":           "KEY=1\n",
		"sub/x.tmpdata":        "t\n",
		"sub/y.txt":            "y\n",
		"private/p.txt":        "p\n",
		"generated.go":         "package gen\n",
		"node_modules/m/a.js":  "js\n",
		"dist/bundle.js":       "js\n",
		"logo.png":             "png\n",
		"debug.log":            "log\n",
		"data.sqlite":          "db\n",
		"archive.zip":          "zip\n",
		"docs/readme.md":       "# docs\n",
		"__pycache__/x.pyc":    "pyc\n",
		"target/debug/out.txt": "rust\n",
	})
	odd := oddNames()
	for _, name := range odd {
		writeFiles(t, ws, map[string]string{name: "a name git and globs read specially\n"})
	}
	sparse := func(p string, size int64) {
		f, err := os.Create(filepath.Join(ws, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		mustClose(t, f)
	}
	sparse("at-limit.dat", DefaultMaxFileSize)
	sparse("over-limit.dat", DefaultMaxFileSize+1)

	ctx := context.Background()
	m := newManager(t, ws)
	c1 := commit(t, m)
	want := []string{".cairnignore", ".gitignore", "at-limit.dat", "docs/readme.md", "extra.ignore", "keep.go",
		"sub/.gitignore", "sub/y.txt"}
	want = append(want, odd...)
	slices.Sort(want)
	if got := trackedIn(t, m, c1); !reflect.DeepEqual(got, want) {
		t.Fatalf("checkpoint holds\n%q\nwant\n%q", got, want)
	}
	if w := m.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "over-limit.dat is larger than the checkpoint limit") {
		t.Fatalf("warnings = %q", w)
	}

	// A tracked file that grows past the limit, and one the user now ignores, leave later
	// checkpoints but stay on disk.
	sparse("at-limit.dat", DefaultMaxFileSize+2)
	writeFiles(t, ws, map[string]string{".cairnignore": "private/\n!include extra.ignore\nkeep.go\n"})
	c2 := commit(t, m)
	got := trackedIn(t, m, c2)
	if slices.Contains(got, "at-limit.dat") || slices.Contains(got, "keep.go") {
		t.Fatalf("checkpoint 2 still holds newly excluded files: %q", got)
	}
	if _, ok := readFile(t, ws, "keep.go"); !ok {
		t.Fatal("keep.go was deleted from disk")
	}

	// Files created in excluded places after a checkpoint survive its restore.
	writeFiles(t, ws, map[string]string{"node_modules/new/b.js": "b\n", "private/q.txt": "q\n", "fresh.txt": "fresh\n"})
	if err := m.Restore(ctx, c2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"node_modules/new/b.js", "private/q.txt", "secret.env", "over-limit.dat", "at-limit.dat", "keep.go"} {
		if _, ok := readFile(t, ws, p); !ok {
			t.Errorf("restore removed excluded file %s", p)
		}
	}
	if _, ok := readFile(t, ws, "fresh.txt"); ok {
		t.Error("restore kept fresh.txt, created after the checkpoint")
	}
}

func TestRefusesProtectedFolders(t *testing.T) {
	home := isolateHome(t)
	for _, name := range []string{"", "Desktop", "Documents", "Downloads", "project"} {
		if err := os.MkdirAll(filepath.Join(home, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		dir  string
		want error
	}{
		{"home", home, ErrProtectedDir},
		{"home with trailing slash", home + "/", ErrProtectedDir},
		{"desktop", filepath.Join(home, "Desktop"), ErrProtectedDir},
		{"documents", filepath.Join(home, "Documents"), ErrProtectedDir},
		{"downloads", filepath.Join(home, "Downloads"), ErrProtectedDir},
		{"filesystem root", "/", ErrProtectedDir},
		{"project below home", filepath.Join(home, "project"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			m, err := New(context.Background(), data, tt.dir)
			if !errors.Is(err, tt.want) {
				t.Fatalf("New(%s) error = %v, want %v", tt.dir, err, tt.want)
			}
			if tt.want == nil {
				mustClose(t, m)
				return
			}
			if m != nil {
				t.Fatal("New returned a Manager with an error")
			}
			if entries, _ := os.ReadDir(data); len(entries) != 0 {
				t.Fatalf("refused workspace left %d entries in the data dir", len(entries))
			}
		})
	}
}

// A first checkpoint over its limit disables the Manager with a banner-ready error; another
// task's Manager on the same workspace starts clean.
func TestFirstCheckpointTimeoutDisables(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "a\n"})
	data := t.TempDir()
	ctx := context.Background()
	m, err := New(ctx, data, ws, WithFirstTimeout(1)) // 1 ns: expired before git runs
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Commit(ctx, "first")
	if !errors.Is(err, ErrTooSlow) || !errors.Is(err, ErrDisabled) {
		t.Fatalf("first Commit error = %v, want ErrTooSlow and ErrDisabled", err)
	}
	if !strings.Contains(err.Error(), "took too long") {
		t.Fatalf("error text %q is not fit for a banner", err)
	}
	if _, err2 := m.Commit(ctx, "again"); !errors.Is(err2, ErrDisabled) {
		t.Fatalf("later Commit error = %v, want ErrDisabled", err2)
	}
	if _, err2 := m.Diff(ctx, "abcd", ""); !errors.Is(err2, ErrDisabled) {
		t.Fatalf("Diff on a disabled Manager = %v", err2)
	}
	if err2 := m.Restore(ctx, "abcd"); !errors.Is(err2, ErrDisabled) {
		t.Fatalf("Restore on a disabled Manager = %v", err2)
	}

	m2, err := New(ctx, data, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, m2)
	h := commit(t, m2)
	if got := trackedIn(t, m2, h); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Fatalf("second Manager's checkpoint holds %q", got)
	}
}

// Hashes come from callers (the UI); anything but a commit of this repository is refused and
// nothing changes.
func TestBadHashes(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "a\n"})
	m := newManager(t, ws)
	c1 := commit(t, m)
	writeFiles(t, ws, map[string]string{"a.txt": "b\n"})
	tree, _ := m.git.run(context.Background(), nil, "rev-parse", c1+"^{tree}")
	for _, h := range []string{"", "--output=/tmp/x", "HEAD", "HEAD~1", "deadbeef", "abc", strings.TrimSpace(string(tree)), c1 + ":a.txt"} {
		if _, err := m.Diff(context.Background(), h, ""); !errors.Is(err, ErrBadHash) {
			t.Errorf("Diff(%q) error = %v, want ErrBadHash", h, err)
		}
		if _, err := m.Diff(context.Background(), c1, h); h != "" && !errors.Is(err, ErrBadHash) {
			t.Errorf("Diff(c1, %q) error = %v, want ErrBadHash", h, err)
		}
		if err := m.Restore(context.Background(), h); !errors.Is(err, ErrBadHash) {
			t.Errorf("Restore(%q) error = %v, want ErrBadHash", h, err)
		}
	}
	if got, _ := readFile(t, ws, "a.txt"); got != "b\n" {
		t.Fatalf("a.txt = %q after refused restores", got)
	}
}

// Checkpoints of one workspace survive the Manager: a later task compares and restores them.
func TestLaterManagerSeesCheckpoints(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	data := t.TempDir()
	ctx := context.Background()
	writeFiles(t, ws, map[string]string{"a.txt": "a\n"})
	m1, err := New(ctx, data, ws)
	if err != nil {
		t.Fatal(err)
	}
	c1 := commit(t, m1)
	mustClose(t, m1)
	writeFiles(t, ws, map[string]string{"a.txt": "changed\n"})
	m2, err := New(ctx, data, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, m2)
	if m2.Dir() != m1.Dir() {
		t.Fatalf("second Manager uses %s, first %s", m2.Dir(), m1.Dir())
	}
	d, err := m2.Diff(ctx, c1, "")
	if err != nil || !reflect.DeepEqual(d, []FileDiff{{Path: "a.txt", Before: "a\n", After: "changed\n"}}) {
		t.Fatalf("Diff = %q, %v", d, err)
	}
	if err := m2.Restore(ctx, c1); err != nil {
		t.Fatal(err)
	}
	if got, _ := readFile(t, ws, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q after restore", got)
	}
}
