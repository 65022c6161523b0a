// Package worktree gives a task a git worktree of its own: a checkout of the user's repository
// on a new branch, kept under the data dir and never inside the workspace, so tasks running at
// once never edit the same files and the user's tree changes only when the user merges (README,
// "Tasks in worktrees"; docs/architecture.md, "Worktrees").
//
// It runs the machine's git, as core/checkpoint does. Each worktree has a small JSON record
// beside its folder, written before git creates the worktree, so one a crash left half made is
// still listed and can be discarded. Nothing here ever pushes.
package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Merge modes (the worktreeMergeMode setting).
const (
	// MergeUncommitted applies the task's changes to the user's working tree, uncommitted.
	MergeUncommitted = "uncommitted"
	// MergeCommit commits the task's changes on its branch and merges that branch with a
	// merge commit.
	MergeCommit = "commit"
)

// Worktree is one task's worktree, as its record holds it.
type Worktree struct {
	// TaskID is the task's id; the record and the folder are named by it.
	TaskID string `json:"taskId"`
	Title  string `json:"title"`
	// Repo is the top folder of the user's repository.
	Repo string `json:"repo"`
	// Path is the worktree's folder, the checkout of the repository's top.
	Path string `json:"path"`
	// Sub is the folder of the repository the task was started in, slash-separated from its
	// top ("" for the top): the task is rooted at the same folder inside its worktree, so a
	// file it writes lands in that folder when merged (README, "Tasks in worktrees").
	Sub    string `json:"sub,omitempty"`
	Branch string `json:"branch"`
	// Base is the commit the branch started from: changes are counted and reviewed against it.
	Base    string    `json:"base"`
	Created time.Time `json:"created"`
	// Merged is when the task's changes were last merged (zero: never).
	Merged time.Time `json:"merged,omitzero"`
}

// Root is the task's workspace root: Sub inside the worktree.
func (w Worktree) Root() string { return filepath.Join(w.Path, filepath.FromSlash(w.Sub)) }

// Stats counts a worktree's changes against its base, uncommitted and new files included.
type Stats struct {
	Files   int
	Added   int
	Removed int
}

// Entry is a listed worktree: its record, whether its folder is still a worktree of the
// repository, and its changes (zero when it is not).
type Entry struct {
	Worktree
	Present bool
	Stats   Stats
}

// Change is one file a task changed against its base.
type Change struct {
	// Path is slash-separated, relative to the repository's top.
	Path string
	// Status is "A" (added), "M" (modified) or "D" (deleted).
	Status string
}

// Manager keeps the worktrees under one folder (the data dir's worktrees/). Its methods are
// safe for concurrent use; mu serialises those that write to a repository.
type Manager struct {
	dir string

	// mu serialises Create, Merge and Discard, which change the user's repository.
	mu sync.Mutex
}

// New returns the manager of the worktrees under dir. A relative dir (`--data-dir data`) is
// made absolute first: git names worktrees by absolute paths, and so must their records.
func New(dir string) *Manager {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &Manager{dir: dir}
}

// Dir is the folder the worktrees and their records live in.
func (m *Manager) Dir() string { return m.dir }

func (m *Manager) recordPath(id string) string { return filepath.Join(m.dir, id+".json") }

// RepoTop returns the top folder of the git repository holding dir, or ErrNotGitRepo.
func RepoTop(ctx context.Context, dir string) (string, error) {
	top, err := gitCmd{dir: dir}.line(ctx, "rev-parse", "--show-toplevel")
	if err != nil || top == "" {
		return "", fmt.Errorf("%s: %w", dir, ErrNotGitRepo)
	}
	if _, err := (gitCmd{dir: top}).line(ctx, "rev-parse", "--verify", "HEAD^{commit}"); err != nil {
		return "", fmt.Errorf("%s has no commit yet: %w", top, ErrNotGitRepo)
	}
	return filepath.Clean(top), nil
}

// Create makes the worktree of task id (title names the branch) from the current HEAD of the
// repository holding repo: branch cairn/<slug>-<id>, folder <dir>/<id>/<repository name>, and
// the task's root (Root) at repo's place inside it.
// With carry, the working tree's uncommitted changes and new (not ignored) files are copied
// into it, uncommitted.
func (m *Manager) Create(ctx context.Context, repo, title, id string, carry bool) (Worktree, error) {
	top, err := RepoTop(ctx, repo)
	if err != nil {
		return Worktree{}, err
	}
	g := gitCmd{dir: top}
	base, err := g.line(ctx, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return Worktree{}, err
	}
	w := Worktree{TaskID: id, Title: title, Repo: top, Branch: "cairn/" + slug(title) + "-" + id, Base: base,
		Path: filepath.Join(m.dir, id, filepath.Base(top)), Created: time.Now().UTC()}
	if abs, err := filepath.Abs(repo); err == nil {
		if rel, err := filepath.Rel(canon(top), canon(abs)); err == nil && rel != "." && filepath.IsLocal(rel) {
			w.Sub = filepath.ToSlash(rel)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(w.Path), 0o700); err != nil {
		return Worktree{}, err
	}
	if err := m.save(w); err != nil {
		return Worktree{}, err
	}
	if _, err := g.run(ctx, "worktree", "add", "--quiet", "-b", w.Branch, w.Path, base); err != nil {
		return Worktree{}, errors.Join(err, m.forget(w))
	}
	if carry {
		if err := carryChanges(ctx, top, w.Path); err != nil {
			return Worktree{}, errors.Join(fmt.Errorf("carry uncommitted changes: %w", err), m.remove(ctx, w))
		}
	}
	// A folder git does not track (empty, or only new files not carried) is made, so the
	// task's root exists.
	if err := os.MkdirAll(w.Root(), 0o755); err != nil {
		return Worktree{}, errors.Join(err, m.remove(ctx, w))
	}
	return w, nil
}

// carryChanges copies the uncommitted changes of the working tree at top into the worktree at
// path: the tracked files' diff against HEAD, applied, and the new files that are not ignored.
func carryChanges(ctx context.Context, top, path string) error {
	patch, err := gitCmd{dir: top}.run(ctx, "diff", "--binary", "HEAD")
	if err != nil {
		return err
	}
	if len(patch) > 0 {
		if _, err := (gitCmd{dir: path, stdin: strings.NewReader(string(patch))}).run(ctx, "apply", "--whitespace=nowarn"); err != nil {
			return err
		}
	}
	out, err := gitCmd{dir: top}.run(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return err
	}
	for _, rel := range splitZ(out) {
		if err := copyFile(filepath.Join(top, filepath.FromSlash(rel)), filepath.Join(path, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	st, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	}
	if !st.Mode().IsRegular() {
		return nil // a socket or a device is no file to carry
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}

// slug is the short branch-safe form of a title: lower-case letters and digits joined by
// single dashes, at most 24 bytes, "task" when nothing is left.
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 24 {
				break
			}
			continue
		}
		dash = true
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "task"
	}
	return s
}

// save writes w's record atomically.
func (m *Manager) save(w Worktree) error {
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	tmp := m.recordPath(w.TaskID) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, m.recordPath(w.TaskID))
}

// forget removes w's record and its folder (which holds nothing git made).
func (m *Manager) forget(w Worktree) error {
	err := os.Remove(m.recordPath(w.TaskID))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return errors.Join(err, os.RemoveAll(filepath.Join(m.dir, w.TaskID)))
}

// Get returns task id's worktree record.
func (m *Manager) Get(id string) (Worktree, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return Worktree{}, ErrNotFound
	}
	data, err := os.ReadFile(m.recordPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return Worktree{}, ErrNotFound
	}
	if err != nil {
		return Worktree{}, err
	}
	var w Worktree
	if err := json.Unmarshal(data, &w); err != nil {
		return Worktree{}, fmt.Errorf("worktree record %s: %w", id, err)
	}
	return w, nil
}

// Records returns every record under the folder, oldest first.
func (m *Manager) Records() ([]Worktree, error) {
	ents, err := os.ReadDir(m.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Worktree
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		w, err := m.Get(id)
		if err != nil {
			slog.Warn("worktree record unreadable", "file", e.Name(), "err", err)
			continue
		}
		out = append(out, w)
	}
	sortByCreated(out)
	return out, nil
}

func sortByCreated(ws []Worktree) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && ws[j].Created.Before(ws[j-1].Created); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// List returns the worktrees of the repository holding repo ("": of every repository), with
// whether each is still a worktree there (`git worktree list --porcelain`) and its changes.
func (m *Manager) List(ctx context.Context, repo string) ([]Entry, error) {
	top := ""
	if repo != "" {
		t, err := RepoTop(ctx, repo)
		if err != nil {
			return nil, err
		}
		top = mainTop(ctx, t)
	}
	recs, err := m.Records()
	if err != nil {
		return nil, err
	}
	registered := map[string]map[string]bool{}
	var out []Entry
	for _, w := range recs {
		if top != "" && !samePath(w.Repo, top) {
			continue
		}
		if registered[w.Repo] == nil {
			registered[w.Repo] = listed(ctx, w.Repo)
		}
		e := Entry{Worktree: w, Present: registered[w.Repo][canon(w.Path)]}
		if e.Present {
			if e.Stats, err = m.stats(ctx, w); err != nil {
				slog.Warn("worktree stats", "task", w.TaskID, "err", err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// mainTop returns the main repository's top for the top of one of its worktrees (a task's
// own, where `cairn worktrees list` may be run), and top itself otherwise.
func mainTop(ctx context.Context, top string) string {
	common, err := gitCmd{dir: top}.line(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil || filepath.Base(common) != ".git" {
		return top
	}
	return filepath.Dir(common)
}

// listed returns the folders `git worktree list` names for the repository at top.
func listed(ctx context.Context, top string) map[string]bool {
	out, err := gitCmd{dir: top}.run(ctx, "worktree", "list", "--porcelain", "-z")
	set := map[string]bool{}
	if err != nil {
		slog.Warn("git worktree list", "repo", top, "err", err)
		return set
	}
	for _, f := range splitZ(out) {
		if p, ok := strings.CutPrefix(f, "worktree "); ok {
			if _, err := os.Stat(p); err == nil {
				set[canon(p)] = true
			}
		}
	}
	return set
}

func canon(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return filepath.Clean(r)
	}
	return filepath.Clean(p)
}

func samePath(a, b string) bool { return canon(a) == canon(b) }

// Stats returns task id's changes against its base.
func (m *Manager) Stats(ctx context.Context, id string) (Stats, error) {
	w, err := m.Get(id)
	if err != nil {
		return Stats{}, err
	}
	return m.stats(ctx, w)
}

func (m *Manager) stats(ctx context.Context, w Worktree) (Stats, error) {
	tree, err := snapshot(ctx, w.Path)
	if err != nil {
		return Stats{}, err
	}
	out, err := gitCmd{dir: w.Path}.run(ctx, "diff-tree", "-r", "--numstat", "-z", w.Base, tree)
	if err != nil {
		return Stats{}, err
	}
	var s Stats
	for _, rec := range splitZ(out) {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) < 3 {
			continue
		}
		s.Files++
		a, _ := strconv.Atoi(parts[0]) // "-" for a binary file counts no lines
		r, _ := strconv.Atoi(parts[1])
		s.Added += a
		s.Removed += r
	}
	return s, nil
}

// Changes lists the files task id changed against its base, uncommitted and new ones included.
func (m *Manager) Changes(ctx context.Context, id string) ([]Change, error) {
	w, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	tree, err := snapshot(ctx, w.Path)
	if err != nil {
		return nil, err
	}
	out, err := gitCmd{dir: w.Path}.run(ctx, "diff-tree", "-r", "--name-status", "--no-renames", "-z", w.Base, tree)
	if err != nil {
		return nil, err
	}
	f := splitZ(out)
	var cs []Change
	for i := 0; i+1 < len(f); i += 2 {
		cs = append(cs, Change{Status: f[i][:1], Path: f[i+1]})
	}
	return cs, nil
}

// BaseContent returns the content of rel (slash-separated, from the repository's top) at task
// id's base commit, and false when the file did not exist there.
func (m *Manager) BaseContent(ctx context.Context, id, rel string) ([]byte, bool, error) {
	w, err := m.Get(id)
	if err != nil {
		return nil, false, err
	}
	g := gitCmd{dir: w.Repo}
	if _, err := g.run(ctx, "cat-file", "-e", w.Base+":"+rel); err != nil {
		return nil, false, nil
	}
	data, err := g.run(ctx, "cat-file", "blob", w.Base+":"+rel)
	return data, err == nil, err
}

// snapshot returns the tree of the working tree at dir as it is on disk: tracked files with
// their changes and new files that are not ignored. It stages into a copy of the index, so
// the real one is untouched.
func snapshot(ctx context.Context, dir string) (string, error) {
	g := gitCmd{dir: dir}
	idx, err := g.line(ctx, "rev-parse", "--git-path", "index")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(idx) {
		idx = filepath.Join(dir, idx)
	}
	tmp, err := os.CreateTemp("", "cairn-worktree-index-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err := os.Remove(tmp.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			slog.Warn("temporary index left behind", "file", tmp.Name(), "err", err)
		}
	}()
	if err := copyInto(tmp, idx); err != nil {
		return "", err
	}
	// The copy keeps the index's time: git re-reads a file whose time is not older than the
	// index's, as one edited in the second the index was written may hold a change its stat
	// does not show; a copy timed now would switch that check off and miss such an edit.
	if st, err := os.Stat(idx); err == nil {
		if err := os.Chtimes(tmp.Name(), st.ModTime(), st.ModTime()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	g.env = []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if _, err := g.run(ctx, "add", "-A", "."); err != nil {
		return "", err
	}
	return g.line(ctx, "write-tree")
}

// copyInto copies the file at from into f and closes f; with no file at from, f is removed
// (an empty file is no index to git, which creates the file itself).
func copyInto(f *os.File, from string) error {
	in, err := os.Open(from)
	if errors.Is(err, os.ErrNotExist) {
		return errors.Join(f.Close(), os.Remove(f.Name()))
	}
	if err != nil {
		return errors.Join(err, f.Close())
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	if _, err := io.Copy(f, in); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}
