package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ToggleMcpServer enables or disables an MCP server.
func (s *Services) ToggleMcpServer(_ context.Context, req *cairnv1.ToggleMcpServerRequest) (*cairnv1.ToggleMcpServerResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	if err := hub.SetDisabled(req.GetName(), req.GetDisabled()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ToggleMcpServerResponse{}, nil
}
