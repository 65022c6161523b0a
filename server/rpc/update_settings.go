package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// UpdateSettings replaces the settings; they apply to tasks started afterwards.
func (s *Services) UpdateSettings(_ context.Context, req *cairnv1.UpdateSettingsRequest) (*cairnv1.UpdateSettingsResponse, error) {
	if req.GetSettings() == nil {
		return nil, status.Error(codes.InvalidArgument, "settings are required")
	}
	next := fromSettings(req.GetSettings(), s.b.Settings.Get())
	if err := s.b.Settings.Set(next); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.UpdateSettingsResponse{Settings: toSettings(next)}, nil
}
