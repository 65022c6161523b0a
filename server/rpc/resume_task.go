package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ResumeTask loads a task from history; the resume ask arrives on the subscription.
func (s *Services) ResumeTask(ctx context.Context, req *cairnv1.ResumeTaskRequest) (*cairnv1.ResumeTaskResponse, error) {
	if req.GetTaskId() == "" {
		return nil, status.Error(codes.InvalidArgument, "task_id is required")
	}
	own, err := fromOverrides(req.GetOverrides(), s.b.Settings.Get())
	if err != nil {
		return nil, err
	}
	if _, err := s.b.Tasks.OpenWith(ctx, req.GetTaskId(), req.GetHostId(), own); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ResumeTaskResponse{}, nil
}
