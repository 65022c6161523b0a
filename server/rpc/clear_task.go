package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ClearTask closes a task in the daemon; it stays in history.
func (s *Services) ClearTask(ctx context.Context, req *cairnv1.ClearTaskRequest) (*cairnv1.ClearTaskResponse, error) {
	s.b.Tasks.Clear(ctx, req.GetTaskId())
	return &cairnv1.ClearTaskResponse{}, nil
}
