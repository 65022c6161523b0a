package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SetMode switches a task between PLAN, ACT and its other modes (docs/modes.md).
func (s *Services) SetMode(ctx context.Context, req *cairnv1.SetModeRequest) (*cairnv1.SetModeResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	if err := t.SetMode(modeOf(req.GetModeSlug(), req.GetMode())); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SetModeResponse{}, nil
}
