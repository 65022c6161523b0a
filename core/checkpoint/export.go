package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ExportTo writes the workspace's files as they were at checkpoint hash into dir, another
// folder (a fork's new worktree: README, "Fork from any message"): the checkpoint's files are
// written, and files dir's own git tracks that the checkpoint does not hold are deleted. The
// workspace, the shadow repository's index and its history are untouched: the checkout goes
// through an index file of its own.
func (m *Manager) ExportTo(ctx context.Context, hash, dir string) error {
	if err := m.Err(); err != nil {
		return err
	}
	if err := m.repo.lock(ctx); err != nil {
		return err
	}
	defer m.repo.unlock()
	target, err := m.checkHash(ctx, hash)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("checkpoints: export: %w", err)
	}
	tmp, err := os.MkdirTemp("", "cairn-export-")
	if err != nil {
		return fmt.Errorf("checkpoints: export: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a scratch index; nothing in it is kept
	g := newGitRunner(m.git.bin, m.gitDir, abs)
	g.env = append(g.env, "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))
	if _, err := g.run(ctx, nil, "read-tree", target); err != nil {
		return fmt.Errorf("checkpoints: export: %w", err)
	}
	if _, err := g.run(ctx, nil, "checkout-index", "-a", "-f"); err != nil {
		return fmt.Errorf("checkpoints: export: %w", err)
	}
	out, err := g.run(ctx, nil, "ls-tree", "-r", "-z", "--name-only", target)
	if err != nil {
		return fmt.Errorf("checkpoints: export: %w", err)
	}
	keep := map[string]bool{}
	for _, p := range splitZ(out) {
		keep[p] = true
	}
	return removeTrackedExcept(ctx, m.git.bin, abs, keep)
}

// removeTrackedExcept deletes the files dir's own git repository tracks that keep does not
// hold (files the task had deleted by the checkpoint). A dir outside any repository has none.
func removeTrackedExcept(ctx context.Context, bin, dir string, keep map[string]bool) error {
	g := newGitRunner(bin, "", dir)
	g.env = withoutGitDir(g.env)
	out, err := g.run(ctx, nil, "ls-files", "-z")
	if err != nil {
		return nil // not a repository: the checkout is all there is
	}
	for _, p := range splitZ(out) {
		if keep[p] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("checkpoints: export: remove %s: %w", p, err)
		}
	}
	return nil
}

// withoutGitDir drops GIT_DIR and GIT_WORK_TREE so git finds the folder's own repository.
func withoutGitDir(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			out = append(out, kv)
		}
	}
	return out
}
