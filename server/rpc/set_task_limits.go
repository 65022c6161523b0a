package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SetTaskLimits replaces a loaded task's request and cost limits.
func (s *Services) SetTaskLimits(ctx context.Context, req *cairnv1.SetTaskLimitsRequest) (*cairnv1.SetTaskLimitsResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	if err := t.SetLimits(fromLimits(req.GetLimits())); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SetTaskLimitsResponse{}, nil
}
