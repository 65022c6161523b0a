package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/task"
)

// NewTask starts a task.
func (s *Services) NewTask(ctx context.Context, req *cairnv1.NewTaskRequest) (*cairnv1.NewTaskResponse, error) {
	own, err := fromOverrides(req.GetOverrides(), s.b.Settings.Get())
	if err != nil {
		return nil, err
	}
	t, err := s.b.Tasks.New(ctx, task.Options{Workspace: req.GetWorkspaceRoots(), HostID: req.GetHostId(), Mode: fromMode(req.GetMode()),
		Overrides: own},
		req.GetText(), req.GetImages(), req.GetFiles())
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.NewTaskResponse{TaskId: t.ID()}, nil
}
