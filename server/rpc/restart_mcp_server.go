package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// RestartMcpServer reconnects an MCP server now.
func (s *Services) RestartMcpServer(_ context.Context, req *cairnv1.RestartMcpServerRequest) (*cairnv1.RestartMcpServerResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	if err := hub.Restart(req.GetName()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.RestartMcpServerResponse{}, nil
}
