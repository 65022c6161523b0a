package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// MergeWorktree lands a task's worktree changes in the user's repository, in the mode asked
// for or the worktreeMergeMode setting's.
func (s *Services) MergeWorktree(ctx context.Context, req *cairnv1.MergeWorktreeRequest) (*cairnv1.MergeWorktreeResponse, error) {
	wm, err := s.worktrees()
	if err != nil {
		return nil, err
	}
	if err := s.running(req.GetTaskId(), "merge its changes"); err != nil {
		return nil, worktreeStatus(err)
	}
	mode := req.GetMode()
	if mode == "" {
		mode = s.b.Settings.Get().WorktreeMergeMode
	}
	res, err := wm.Merge(ctx, req.GetTaskId(), mode)
	if err != nil {
		return nil, worktreeStatus(err)
	}
	return &cairnv1.MergeWorktreeResponse{Files: cleanAll(res.Files), Commit: res.Commit}, nil
}
