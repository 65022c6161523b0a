package rpc

import (
	"context"
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ImportMcpSettings copies the servers of a settings file in Cline's schema.
func (s *Services) ImportMcpSettings(_ context.Context, req *cairnv1.ImportMcpSettingsRequest) (*cairnv1.ImportMcpSettingsResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(req.GetPath()) {
		return nil, status.Error(codes.InvalidArgument, "path must be absolute")
	}
	added, skipped, err := hub.Import(req.GetPath())
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ImportMcpSettingsResponse{Added: added, Skipped: skipped}, nil
}
