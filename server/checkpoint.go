package server

import (
	"context"
	"errors"
	"sync"

	"github.com/cairnhq/cairn/core/checkpoint"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/task"
)

// withCheckpoints gives a task its checkpoint hook when the settings enable checkpoints: a
// shadow-git snapshot of the first workspace root at the first request and after tools that
// may have changed files. The Manager is opened lazily (the first request) and closed with the
// task.
func (c *composer) withCheckpoints(root string, s config.Settings, d task.Deps) task.Deps {
	if !s.CheckpointsEnabled || c.dataDir == "" || root == "" {
		return d
	}
	cp := &taskCheckpoints{dataDir: c.dataDir, root: root}
	d.Checkpoint = cp.commit
	prev := d.OnClose
	d.OnClose = func() {
		cp.close()
		if prev != nil {
			prev()
		}
	}
	return d
}

// taskCheckpoints is one task's checkpoint state. It reports a failure once (the task shows
// it as an error row) and then stays quiet for the rest of the task.
type taskCheckpoints struct {
	dataDir, root string

	// mu guards the fields below; it is held while a checkpoint is taken, so commits of one
	// task never overlap.
	mu   sync.Mutex
	m    *checkpoint.Manager
	off  bool   // a failure was reported
	last string // hash last shown
}

func (c *taskCheckpoints) commit(ctx context.Context) (string, error) {
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
func (c *taskCheckpoints) fail(ctx context.Context, err error) (string, error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return "", nil
	}
	c.off = true
	return "", err
}

func (c *taskCheckpoints) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m != nil {
		_ = c.m.Close()
		c.m = nil
	}
	c.off = true
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
