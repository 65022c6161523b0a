package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ListModels asks the endpoint for its models.
func (s *Services) ListModels(ctx context.Context, req *cairnv1.ListModelsRequest) (*cairnv1.ListModelsResponse, error) {
	cur := s.b.Settings.Get()
	base, key := req.GetBaseUrl(), req.GetApiKey()
	if base == "" {
		base = cur.API.BaseURL
	}
	if key == "" {
		key = cur.API.APIKey
	}
	models, err := s.b.Models(ctx, base, key)
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ListModelsResponse{Models: models}, nil
}
