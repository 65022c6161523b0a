package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SetFavorite marks a task.
func (s *Services) SetFavorite(_ context.Context, req *cairnv1.SetFavoriteRequest) (*cairnv1.SetFavoriteResponse, error) {
	if err := s.b.Tasks.SetFavorite(req.GetTaskId(), req.GetFavorite()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SetFavoriteResponse{}, nil
}
