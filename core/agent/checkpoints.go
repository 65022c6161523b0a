package agent

import (
	"context"
	"errors"
	"sync"

	"github.com/cairnhq/cairn/core/checkpoint"
)

// checkpoints is one task's checkpoint state: a shadow-git snapshot of the first workspace
// root at the first request and after tools that may have changed files. The repository is
// opened on the first commit and closed with the task. A failure is reported once (the task
// shows it as an error row); checkpoints then stay off for the rest of the task.
type checkpoints struct {
	dataDir, root string

	// mu guards the fields below; it is held while a checkpoint is taken, so commits of one
	// task never overlap.
	mu   sync.Mutex
	m    *checkpoint.Manager
	off  bool   // a failure was reported
	last string // hash last shown
}

func (c *checkpoints) commit(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off {
		return "", nil
	}
	if c.m == nil {
		m, err := checkpoint.New(ctx, c.dataDir, c.root)
		if err != nil {
			return c.fail(ctx, err)
		}
		c.m = m
	}
	hash, err := c.m.Commit(ctx, "checkpoint")
	if err != nil {
		return c.fail(ctx, err)
	}
	if hash == c.last {
		return "", nil // nothing changed since the last row
	}
	c.last = hash
	return hash, nil
}

// fail turns checkpoints off for the task; a cancelled task reports nothing.
func (c *checkpoints) fail(ctx context.Context, err error) (string, error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return "", nil
	}
	c.off = true
	return "", err
}

func (c *checkpoints) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off = true
	if c.m == nil {
		return nil
	}
	err := c.m.Close()
	c.m = nil
	return err
}

// CompareCheckpoints returns the files that differ between two checkpoints of a workspace,
// or between a checkpoint and the working tree when to is "" (for the compare RPC and the
// host's multi-diff view).
func CompareCheckpoints(ctx context.Context, dataDir, root, from, to string) (diffs []checkpoint.FileDiff, err error) {
	m, err := checkpoint.New(ctx, dataDir, root)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, m.Close()) }()
	return m.Diff(ctx, from, to)
}

// RestoreCheckpointFiles restores a workspace's files to a checkpoint (the "files" part of a
// restore; the task part belongs to the task layer). The current state is checkpointed first,
// so the restore itself can be undone; its hash is returned.
func RestoreCheckpointFiles(ctx context.Context, dataDir, root, hash string) (before string, err error) {
	m, err := checkpoint.New(ctx, dataDir, root, checkpoint.WithFirstTimeout(0))
	if err != nil {
		return "", err
	}
	defer func() { err = errors.Join(err, m.Close()) }()
	if before, err = m.Commit(ctx, "before restore"); err != nil {
		return "", err
	}
	return before, m.Restore(ctx, hash)
}

// ExportCheckpointFiles writes a workspace's files as they were at a checkpoint into another
// folder (a fork's worktree, README "Fork from any message"); the workspace is untouched.
func ExportCheckpointFiles(ctx context.Context, dataDir, root, hash, dir string) (err error) {
	m, err := checkpoint.New(ctx, dataDir, root, checkpoint.WithFirstTimeout(0))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.Close()) }()
	return m.ExportTo(ctx, hash, dir)
}
