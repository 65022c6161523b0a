package worktree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/internal/wine"
)

// repo makes a git repository with one commit holding files, and returns its folder.
func repo(t testing.TB, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		// Worktrees need git; anywhere but a Wine prefix without git for Windows, its absence
		// fails the test.
		wine.Skip(t, "the Wine prefix has no git for Windows")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "Test User")
	git(t, dir, "config", "user.email", "user@example.invalid")
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = baseEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree returns every file under dir but .git, with its bytes, to compare trees exactly.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = read(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCreateTwoWorktreesHoldTheirOwnChanges(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "one\ntwo\n"})
	m := New(filepath.Join(t.TempDir(), "worktrees"))
	w1, err := m.Create(ctx, filepath.Join(r), "Fix the greeting!", "100-aa", false)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := m.Create(ctx, r, "", "200-bb", false)
	if err != nil {
		t.Fatal(err)
	}
	if w1.Branch != "cairn/fix-the-greeting-100-aa" || w2.Branch != "cairn/task-200-bb" {
		t.Fatalf("branches %q %q", w1.Branch, w2.Branch)
	}
	if strings.HasPrefix(w1.Path, r) {
		t.Fatalf("worktree %s inside the workspace %s", w1.Path, r)
	}
	write(t, filepath.Join(w1.Path, "a.txt"), "one\nTWO\nthree\n")
	write(t, filepath.Join(w2.Path, "a.txt"), "uno\ntwo\n")
	write(t, filepath.Join(w2.Path, "new.txt"), "n\n")

	list, err := m.List(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].TaskID != "100-aa" || list[1].TaskID != "200-bb" || !list[0].Present || !list[1].Present {
		t.Fatalf("list %+v", list)
	}
	if want := (Stats{Files: 1, Added: 2, Removed: 1}); list[0].Stats != want {
		t.Errorf("stats of 1: %+v, want %+v", list[0].Stats, want)
	}
	if want := (Stats{Files: 2, Added: 2, Removed: 1}); list[1].Stats != want {
		t.Errorf("stats of 2: %+v, want %+v", list[1].Stats, want)
	}
	if got := read(t, filepath.Join(r, "a.txt")); got != "one\ntwo\n" {
		t.Errorf("user's file changed: %q", got)
	}
	if s := git(t, r, "status", "--porcelain"); s != "" {
		t.Errorf("user's tree not clean: %q", s)
	}
	cs, err := m.Changes(ctx, "200-bb")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Change{{Path: "a.txt", Status: "M"}, {Path: "new.txt", Status: "A"}}; !reflect.DeepEqual(cs, want) {
		t.Errorf("changes %+v", cs)
	}
	base, ok, err := m.BaseContent(ctx, "200-bb", "a.txt")
	if err != nil || !ok || string(base) != "one\ntwo\n" {
		t.Errorf("base content %q %v %v", base, ok, err)
	}
	if _, ok, err := m.BaseContent(ctx, "200-bb", "new.txt"); ok || err != nil {
		t.Errorf("new file has base content: %v %v", ok, err)
	}
}

func TestCreateRefusesAFolderOutsideGit(t *testing.T) {
	m := New(t.TempDir())
	_, err := m.Create(context.Background(), t.TempDir(), "x", "1-a", false)
	if !errors.Is(err, ErrNotGitRepo) {
		t.Fatalf("err %v", err)
	}
	if recs, _ := m.Records(); len(recs) != 0 {
		t.Fatalf("records left: %+v", recs)
	}
}

func TestCreateCarriesUncommittedChanges(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "a\n", "gone.txt": "g\n", ".gitignore": "*.log\n"})
	write(t, filepath.Join(r, "a.txt"), "a changed\n")
	write(t, filepath.Join(r, "sub/new.txt"), "new\n")
	write(t, filepath.Join(r, "x.log"), "ignored\n")
	if err := os.Remove(filepath.Join(r, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	for _, carry := range []bool{false, true} {
		m := New(t.TempDir())
		w, err := m.Create(ctx, r, "carry", map[bool]string{false: "1-no", true: "2-yes"}[carry], carry)
		if err != nil {
			t.Fatal(err)
		}
		got := tree(t, w.Path)
		want := map[string]string{"a.txt": "a\n", "gone.txt": "g\n", ".gitignore": "*.log\n"}
		if carry {
			want = map[string]string{"a.txt": "a changed\n", "sub/new.txt": "new\n", ".gitignore": "*.log\n"}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("carry=%v: worktree %v, want %v", carry, got, want)
		}
	}
}

func TestMergeUncommitted(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "b\n"})
	m := New(t.TempDir())
	w, err := m.Create(ctx, r, "t", "1-a", false)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "one\ntwo\nthree\nfour\n")
	write(t, filepath.Join(w.Path, "c.txt"), "c\n")
	// The user went on meanwhile: a commit and an uncommitted change elsewhere in a.txt.
	write(t, filepath.Join(r, "b.txt"), "b2\n")
	git(t, r, "commit", "-q", "-am", "user")
	write(t, filepath.Join(r, "a.txt"), "ONE\ntwo\nthree\n")
	head := git(t, r, "rev-parse", "HEAD")

	res, err := m.Merge(ctx, "1-a", MergeUncommitted)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Files, []string{"a.txt", "c.txt"}) || res.Commit != "" {
		t.Errorf("result %+v", res)
	}
	if got := read(t, filepath.Join(r, "a.txt")); got != "ONE\ntwo\nthree\nfour\n" {
		t.Errorf("a.txt %q", got)
	}
	if got := read(t, filepath.Join(r, "c.txt")); got != "c\n" {
		t.Errorf("c.txt %q", got)
	}
	if got := git(t, r, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved: %s", got)
	}
	if got := git(t, r, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("index changed: %q", got)
	}
	if rec, _ := m.Get("1-a"); rec.Merged.IsZero() {
		t.Error("merge time not recorded")
	}
}

func TestMergeCommit(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "one\n"})
	m := New(t.TempDir())
	w, err := m.Create(ctx, r, "add two", "1-a", false)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "one\ntwo\n")
	write(t, filepath.Join(r, "unrelated.txt"), "mine, uncommitted\n")
	head := git(t, r, "rev-parse", "HEAD")
	res, err := m.Merge(ctx, "1-a", MergeCommit)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == "" || !reflect.DeepEqual(res.Files, []string{"a.txt"}) {
		t.Fatalf("result %+v", res)
	}
	parents := strings.Fields(git(t, r, "log", "-1", "--format=%P", "HEAD"))
	if len(parents) != 2 || parents[0] != head || parents[1] != git(t, r, "rev-parse", w.Branch) {
		t.Errorf("merge parents %v", parents)
	}
	if got := git(t, r, "log", "-1", "--format=%s", w.Branch); got != "Cairn: add two" {
		t.Errorf("task commit %q", got)
	}
	if got := read(t, filepath.Join(r, "a.txt")); got != "one\ntwo\n" {
		t.Errorf("a.txt %q", got)
	}
	if got := git(t, r, "status", "--porcelain"); got != "?? unrelated.txt" {
		t.Errorf("status %q", got)
	}
}

func TestConflictingMergeLeavesTheTreeByteIdentical(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{MergeUncommitted, MergeCommit} {
		for _, userCommits := range []bool{false, true} {
			name := mode + map[bool]string{false: "/user uncommitted", true: "/user committed"}[userCommits]
			t.Run(name, func(t *testing.T) {
				r := repo(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b\n"})
				m := New(t.TempDir())
				w, err := m.Create(ctx, r, "t", "1-a", false)
				if err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(w.Path, "a.txt"), "one\ntask\n")
				write(t, filepath.Join(w.Path, "b.txt"), "b task\n")
				write(t, filepath.Join(r, "a.txt"), "one\nuser\n")
				if userCommits {
					git(t, r, "commit", "-q", "-am", "user")
				}
				write(t, filepath.Join(r, "scratch.txt"), "untracked\n")
				before, status, head := tree(t, r), git(t, r, "status", "--porcelain"), git(t, r, "rev-parse", "HEAD")
				index := read(t, filepath.Join(r, ".git", "index"))

				_, err = m.Merge(ctx, "1-a", mode)
				var conflict *ConflictError
				if !errors.As(err, &conflict) || !errors.Is(err, ErrConflict) {
					t.Fatalf("err %v", err)
				}
				if !reflect.DeepEqual(conflict.Files, []string{"a.txt"}) || !strings.Contains(err.Error(), "a.txt") {
					t.Errorf("conflict names %v (%v)", conflict.Files, err)
				}
				if after := tree(t, r); !reflect.DeepEqual(after, before) {
					t.Errorf("tree changed:\n%v\n%v", before, after)
				}
				if got := git(t, r, "status", "--porcelain"); got != status {
					t.Errorf("status %q, was %q", got, status)
				}
				if got := git(t, r, "rev-parse", "HEAD"); got != head {
					t.Errorf("HEAD moved")
				}
				if read(t, filepath.Join(r, ".git", "index")) != index {
					t.Errorf("index changed")
				}
			})
		}
	}
}

func TestDiscardLeavesNothing(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "a\n"})
	m := New(t.TempDir())
	w, err := m.Create(ctx, r, "t", "1-a", false)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "changed\n")
	write(t, filepath.Join(w.Path, "junk.txt"), "new\n")
	if err := m.Discard(ctx, "1-a"); err != nil {
		t.Fatal(err)
	}
	assertGone(t, m, r, w)
	if err := m.Discard(ctx, "1-a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second discard: %v", err)
	}
}

func assertGone(t *testing.T, m *Manager, r string, w Worktree) {
	t.Helper()
	if out := git(t, r, "worktree", "list", "--porcelain"); strings.Contains(out, w.Path) {
		t.Errorf("worktree still listed:\n%s", out)
	}
	if out := git(t, r, "branch", "--list", w.Branch); out != "" {
		t.Errorf("branch left: %q", out)
	}
	if _, err := os.Stat(filepath.Dir(w.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("folder left: %v", err)
	}
	if ents, _ := os.ReadDir(m.Dir()); len(ents) != 0 {
		t.Errorf("data dir holds %v", ents)
	}
	if got := read(t, filepath.Join(r, "a.txt")); got != "a\n" {
		t.Errorf("user's file %q", got)
	}
}

// A worktree whose folder is gone (a crash during creation, or the user removed it) is listed
// as not present, and Discard still cleans up its branch and record.
func TestLeftoverWorktreeIsListedAndDiscarded(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "a\n"})
	m := New(t.TempDir())
	w, err := m.Create(ctx, r, "t", "1-a", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(w.Path); err != nil {
		t.Fatal(err)
	}
	list, err := m.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Present || list[0].Branch != w.Branch {
		t.Fatalf("list %+v", list)
	}
	if err := m.Discard(ctx, "1-a"); err != nil {
		t.Fatal(err)
	}
	assertGone(t, m, r, w)
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the greeting!":           "fix-the-greeting",
		"  --  ":                      "task",
		"Ünïcode & émojis 🎉 ok":       "n-code-mojis-ok",
		"a very long title that goes": "a-very-long-title-that-g",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// An edit of the same size made in the second git wrote the index in is still a change: the
// index copy the change list stages into keeps the index's time, so git's check for such
// "racily clean" files stays on (docs/architecture.md, "Worktrees").
func TestChangesSeeAnEditInTheIndexSecond(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "one\n"})
	m := New(filepath.Join(t.TempDir(), "worktrees"))
	w, err := m.Create(ctx, r, "racy", "1-racy", false)
	if err != nil {
		t.Fatal(err)
	}
	idx := git(t, w.Path, "rev-parse", "--path-format=absolute", "--git-path", "index")
	p := filepath.Join(w.Path, "a.txt")
	forced := false
	for try := 0; try < 10 && !forced; try++ {
		write(t, p, "one\n")
		git(t, w.Path, "add", "a.txt") // the entry's stat and the index are written now
		write(t, p, "two\n")           // same size, and with luck the same second
		fi, err1 := os.Stat(p)
		ii, err2 := os.Stat(idx)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		forced = fi.ModTime().Unix() == ii.ModTime().Unix()
	}
	if !forced {
		t.Skip("could not edit the file in the index's second")
	}
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond))) // the copy is made a second later
	cs, err := m.Changes(ctx, w.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Change{{Path: "a.txt", Status: "M"}}; !reflect.DeepEqual(cs, want) {
		t.Fatalf("changes = %v, want %v", cs, want)
	}
}

// A manager given a relative folder (`--data-dir data`) lists its worktrees as present.
func TestRelativeDirListsPresent(t *testing.T) {
	ctx := context.Background()
	r := repo(t, map[string]string{"a.txt": "a\n"})
	t.Chdir(t.TempDir())
	m := New("worktrees")
	if _, err := m.Create(ctx, r, "rel", "1-rel", false); err != nil {
		t.Fatal(err)
	}
	list, err := m.List(ctx, r)
	if err != nil || len(list) != 1 || !list[0].Present || !filepath.IsAbs(list[0].Path) {
		t.Fatalf("List = %+v, %v; want one present worktree with an absolute path", list, err)
	}
}
