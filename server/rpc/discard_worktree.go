package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// DiscardWorktree removes a task's worktree, branch and folder; refused while the task runs
// here or in another process (its owner lock). The task's history stays.
func (s *Services) DiscardWorktree(ctx context.Context, req *cairnv1.DiscardWorktreeRequest) (*cairnv1.DiscardWorktreeResponse, error) {
	wm, err := s.worktrees()
	if err != nil {
		return nil, err
	}
	if err := s.running(req.GetTaskId(), "discard its worktree"); err != nil {
		return nil, worktreeStatus(err)
	}
	if err := wm.Discard(ctx, req.GetTaskId()); err != nil {
		return nil, worktreeStatus(err)
	}
	return &cairnv1.DiscardWorktreeResponse{}, nil
}
