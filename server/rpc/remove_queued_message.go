package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// RemoveQueuedMessage takes a queued message back before the task sends it.
func (s *Services) RemoveQueuedMessage(ctx context.Context, req *cairnv1.RemoveQueuedMessageRequest) (*cairnv1.RemoveQueuedMessageResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	if err := t.Unqueue(req.GetId()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.RemoveQueuedMessageResponse{}, nil
}
