package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// DeleteMcpServer removes an MCP server from the settings.
func (s *Services) DeleteMcpServer(_ context.Context, req *cairnv1.DeleteMcpServerRequest) (*cairnv1.DeleteMcpServerResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	if err := hub.Delete(req.GetName()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.DeleteMcpServerResponse{}, nil
}
