package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/worktree"
)

// DiscardWorktree removes a task's worktree, branch and folder; refused while the task runs
// or waits for an answer in a run. The task's history stays.
func (s *Services) DiscardWorktree(ctx context.Context, req *cairnv1.DiscardWorktreeRequest) (*cairnv1.DiscardWorktreeResponse, error) {
	wm, err := s.worktrees()
	if err != nil {
		return nil, err
	}
	if t, ok := s.b.Tasks.Get(req.GetTaskId()); ok && t.State().Status == task.StatusRunning {
		return nil, worktreeStatus(worktree.ErrRunning)
	}
	if err := wm.Discard(ctx, req.GetTaskId()); err != nil {
		return nil, worktreeStatus(err)
	}
	return &cairnv1.DiscardWorktreeResponse{}, nil
}
