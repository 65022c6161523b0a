package worktree

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MergeResult says what a merge changed in the user's repository.
type MergeResult struct {
	// Files are the files of the user's tree the merge changed, slash-separated.
	Files []string
	// Commit is the merge commit (MergeCommit mode; "" when nothing was merged).
	Commit string
}

// Merge lands task id's changes in the user's repository: as uncommitted changes of the
// working tree (MergeUncommitted) or as a merge commit of the task's branch (MergeCommit), in
// which case the task's uncommitted changes are committed on its branch first. Conflicts are
// found before anything in the user's tree changes (`git merge-tree` on throwaway commits of
// both trees as they are on disk); a conflict, or a file of the merge that the user has
// uncommitted changes in, is a *ConflictError naming the files, and the user's tree is left
// as it was.
func (m *Manager) Merge(ctx context.Context, id, mode string) (MergeResult, error) {
	if mode == "" {
		mode = MergeUncommitted
	}
	if mode != MergeUncommitted && mode != MergeCommit {
		return MergeResult{}, fmt.Errorf("%w: %q", ErrBadMode, mode)
	}
	w, err := m.Get(id)
	if err != nil {
		return MergeResult{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	user := gitCmd{dir: w.Repo}
	head, err := user.line(ctx, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return MergeResult{}, err
	}
	userTree, err := snapshot(ctx, w.Repo)
	if err != nil {
		return MergeResult{}, fmt.Errorf("read your working tree: %w", err)
	}
	var res MergeResult
	switch mode {
	case MergeUncommitted:
		res, err = m.mergeUncommitted(ctx, w, head, userTree)
	default:
		res, err = m.mergeCommit(ctx, w, head, userTree)
	}
	if err != nil {
		return MergeResult{}, err
	}
	w.Merged = time.Now().UTC()
	if err := m.save(w); err != nil {
		slog.Warn("worktree record: merge time not saved", "task", id, "err", err)
	}
	return res, nil
}

// throwaway writes a commit of tree with parent (objects only, no ref points at it), so
// merge-tree can merge trees as they are on disk.
func throwaway(ctx context.Context, dir, tree, parent string) (string, error) {
	g := gitCmd{dir: dir, env: []string{"GIT_AUTHOR_NAME=" + cairnName, "GIT_AUTHOR_EMAIL=" + cairnEmail,
		"GIT_COMMITTER_NAME=" + cairnName, "GIT_COMMITTER_EMAIL=" + cairnEmail}}
	return g.line(ctx, "commit-tree", tree, "-p", parent, "-m", "cairn snapshot")
}

// mergeTree merges commits ours and theirs in the repository at dir without touching any
// work tree or index: the merged tree, or a *ConflictError.
func mergeTree(ctx context.Context, dir, ours, theirs string) (string, error) {
	out, err := gitCmd{dir: dir}.run(ctx, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs)
	f := splitZ(out)
	if err != nil && exitCode(err) == 1 && len(f) > 0 {
		return "", &ConflictError{Files: uniq(f[1:])}
	}
	if err != nil {
		return "", err
	}
	if len(f) == 0 {
		return "", errors.New("git merge-tree printed no tree")
	}
	return f[0], nil
}

func uniq(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// changedNames lists the files that differ between two trees.
func changedNames(ctx context.Context, dir, a, b string) ([]string, error) {
	out, err := gitCmd{dir: dir}.run(ctx, "diff-tree", "-r", "--name-only", "--no-renames", "-z", a, b)
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

func (m *Manager) mergeUncommitted(ctx context.Context, w Worktree, head, userTree string) (MergeResult, error) {
	taskTree, err := snapshot(ctx, w.Path)
	if err != nil {
		return MergeResult{}, fmt.Errorf("read the task's worktree: %w", err)
	}
	ours, err := throwaway(ctx, w.Repo, userTree, head)
	if err != nil {
		return MergeResult{}, err
	}
	theirs, err := throwaway(ctx, w.Repo, taskTree, w.Base)
	if err != nil {
		return MergeResult{}, err
	}
	merged, err := mergeTree(ctx, w.Repo, ours, theirs)
	if err != nil {
		return MergeResult{}, err
	}
	files, err := changedNames(ctx, w.Repo, userTree, merged)
	if err != nil || len(files) == 0 {
		return MergeResult{}, err
	}
	patch, err := gitCmd{dir: w.Repo}.run(ctx, "diff-tree", "-r", "-p", "--binary", "--no-renames", userTree, merged)
	if err != nil {
		return MergeResult{}, err
	}
	// The working tree is userTree, so the patch applies exactly; git apply checks every hunk
	// before it writes any file.
	if _, err := (gitCmd{dir: w.Repo, stdin: strings.NewReader(string(patch))}).run(ctx, "apply", "--whitespace=nowarn"); err != nil {
		return MergeResult{}, fmt.Errorf("apply the task's changes (your tree is unchanged): %w", err)
	}
	return MergeResult{Files: files}, nil
}

func (m *Manager) mergeCommit(ctx context.Context, w Worktree, head, userTree string) (MergeResult, error) {
	task := gitCmd{dir: w.Path, env: identity(ctx, w.Repo)}
	if _, err := task.run(ctx, "add", "-A", "."); err != nil {
		return MergeResult{}, err
	}
	if _, err := task.run(ctx, "diff", "--cached", "--quiet"); err != nil {
		if exitCode(err) != 1 {
			return MergeResult{}, err
		}
		if _, err := task.run(ctx, "commit", "--quiet", "--no-verify", "-m", "Cairn: "+w.Title); err != nil {
			return MergeResult{}, err
		}
	}
	tip, err := task.line(ctx, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return MergeResult{}, err
	}
	merged, err := mergeTree(ctx, w.Repo, head, tip)
	if err != nil {
		return MergeResult{}, err
	}
	files, err := changedNames(ctx, w.Repo, head, merged)
	if err != nil || len(files) == 0 {
		return MergeResult{}, err
	}
	dirty, err := changedNames(ctx, w.Repo, head, userTree)
	if err != nil {
		return MergeResult{}, err
	}
	if both := intersect(files, dirty); len(both) > 0 {
		return MergeResult{}, &ConflictError{Files: both}
	}
	user := gitCmd{dir: w.Repo, env: identity(ctx, w.Repo)}
	if _, err := user.run(ctx, "merge", "--no-ff", "--no-verify", "--quiet", "-m", "Merge "+w.Branch+": "+w.Title, tip); err != nil {
		return MergeResult{}, err
	}
	commit, err := user.line(ctx, "rev-parse", "HEAD")
	return MergeResult{Files: files, Commit: commit}, err
}

func intersect(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

// Discard removes task id's worktree, its branch and its folder. The caller refuses it while
// the task runs (ErrRunning). A worktree whose folder a crash or the user removed is pruned.
func (m *Manager) Discard(ctx context.Context, id string) error {
	w, err := m.Get(id)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.remove(ctx, w)
}

func (m *Manager) remove(ctx context.Context, w Worktree) error {
	g := gitCmd{dir: w.Repo}
	if _, err := os.Stat(w.Repo); err == nil {
		if _, err := os.Stat(w.Path); err == nil {
			if _, err := g.run(ctx, "worktree", "remove", "--force", "--force", w.Path); err != nil {
				return err
			}
		}
		if _, err := g.run(ctx, "worktree", "prune"); err != nil {
			return err
		}
		if _, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+w.Branch); err == nil {
			if _, err := g.run(ctx, "branch", "-D", "--quiet", w.Branch); err != nil {
				return err
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(m.dir, w.TaskID)); err != nil {
		return err
	}
	return m.forget(w)
}
