package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/task/checkpoints"
	"github.com/cairnhq/cairn/core/worktree"
)

// sharedFolderNote is the fork's chat row when its workspace is not a git repository.
const sharedFolderNote = "This fork shares its folder with the task it came from (the workspace is not a git repository, so no worktree could be made); its files were left as they are. Restore its checkpoint row to bring back the files of that point."

// ForkTask starts a new task from a past message of another (README, "Fork from any message").
// In a git repository the fork gets a worktree of its own with the checkpoint's files;
// elsewhere it shares the folder and its files are left as they are (its first row says so).
func (s *Services) ForkTask(ctx context.Context, req *cairnv1.ForkTaskRequest) (*cairnv1.ForkTaskResponse, error) {
	if req.GetTaskId() == "" {
		return nil, status.Error(codes.InvalidArgument, "task_id is required")
	}
	files := func(ctx context.Context, id string, roots []string, p checkpoints.Point) ([]string, string, error) {
		return s.forkFiles(ctx, req.GetTaskId(), id, roots, p)
	}
	t, p, err := s.b.Tasks.Fork(ctx, req.GetTaskId(), int(req.GetMessageIndex()), req.GetHostId(), files)
	if err != nil {
		if errors.Is(err, checkpoints.ErrNoCheckpoint) {
			return nil, status.Error(codes.FailedPrecondition, err.Error())
		}
		return nil, toStatus(err)
	}
	out := &cairnv1.ForkTaskResponse{TaskId: t.ID(), Checkpoint: p.Hash}
	if ws := t.Workspace(); len(ws) > 0 {
		out.WorkspaceRoot = ws[0]
	}
	return out, nil
}

// forkFiles makes the fork's worktree and writes the checkpoint's files into it; without a
// git repository (or worktrees) the fork keeps the original's roots.
func (s *Services) forkFiles(ctx context.Context, from, id string, roots []string, p checkpoints.Point) ([]string, string, error) {
	if len(roots) == 0 {
		return nil, "", fmt.Errorf("%w: the task has no workspace", task.ErrBadRequest)
	}
	if s.b.Env == nil {
		return nil, "", status.Error(codes.Unavailable, "checkpoints are not available in this daemon")
	}
	wm := s.b.Worktrees
	if wm == nil {
		return roots, sharedFolderNote, nil
	}
	repo := roots[0]
	if w, err := wm.Get(from); err == nil {
		repo = w.Repo // a fork of a worktree task branches from the user's repository
	}
	w, err := wm.Create(ctx, repo, "fork", id, false)
	if errors.Is(err, worktree.ErrNotGitRepo) {
		return roots, sharedFolderNote, nil
	}
	if err != nil {
		return nil, "", worktreeStatus(err)
	}
	if err := s.b.Env.CheckpointExport(ctx, roots, p.Hash, w.Root()); err != nil {
		if derr := wm.Discard(context.WithoutCancel(ctx), id); derr != nil {
			slog.Warn("worktree of a fork that failed left behind", "task", id, "err", derr)
		}
		return nil, "", fmt.Errorf("fork: %w", err)
	}
	return append([]string{w.Root()}, roots[1:]...), "", nil
}
