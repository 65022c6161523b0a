package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// UpdateFocusChain stores the user's edit of the todo list.
func (s *Services) UpdateFocusChain(ctx context.Context, req *cairnv1.UpdateFocusChainRequest) (*cairnv1.UpdateFocusChainResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	t.UpdateFocusChain(req.GetMarkdown())
	return &cairnv1.UpdateFocusChainResponse{}, nil
}
