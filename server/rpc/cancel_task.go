package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// CancelTask stops the task's request and tools.
func (s *Services) CancelTask(ctx context.Context, req *cairnv1.CancelTaskRequest) (*cairnv1.CancelTaskResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	if err := t.Cancel(ctx); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.CancelTaskResponse{}, nil
}
