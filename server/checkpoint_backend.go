package server

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/checkpoint"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/workspace"
)

// checkpointRoot is the folder a task's checkpoints snapshot: its primary workspace root.
func checkpointRoot(roots []string) (string, error) {
	if len(roots) == 0 {
		return "", fmt.Errorf("%w: the task has no workspace", task.ErrBadRequest)
	}
	ws, err := workspace.New(roots...)
	if err != nil {
		return "", fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	return ws.Root(), nil
}

// CheckpointDiff backs the compare RPC (rpc.Env).
func (c *composer) CheckpointDiff(ctx context.Context, roots []string, from, to string) (string, []checkpoint.FileDiff, error) {
	root, err := checkpointRoot(roots)
	if err != nil {
		return "", nil, err
	}
	files, err := agent.CompareCheckpoints(ctx, c.agent.DataDir, root, from, to)
	if err != nil {
		return "", nil, fmt.Errorf("compare checkpoints: %w", err)
	}
	return root, files, nil
}

// CheckpointRestoreFiles backs the files part of the restore RPC (rpc.Env).
func (c *composer) CheckpointRestoreFiles(ctx context.Context, roots []string, hash string) error {
	root, err := checkpointRoot(roots)
	if err != nil {
		return err
	}
	if _, err := agent.RestoreCheckpointFiles(ctx, c.agent.DataDir, root, hash); err != nil {
		return fmt.Errorf("restore checkpoint: %w", err)
	}
	return nil
}

// CheckpointExport backs ForkTask's files (rpc.Env).
func (c *composer) CheckpointExport(ctx context.Context, roots []string, hash, dir string) error {
	root, err := checkpointRoot(roots)
	if err != nil {
		return err
	}
	if err := agent.ExportCheckpointFiles(ctx, c.agent.DataDir, root, hash, dir); err != nil {
		return fmt.Errorf("export checkpoint: %w", err)
	}
	return nil
}
