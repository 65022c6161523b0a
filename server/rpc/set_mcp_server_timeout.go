package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SetMcpServerTimeout sets an MCP server's timeout in seconds.
func (s *Services) SetMcpServerTimeout(_ context.Context, req *cairnv1.SetMcpServerTimeoutRequest) (*cairnv1.SetMcpServerTimeoutResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	if err := hub.SetTimeout(req.GetName(), int(req.GetTimeoutSeconds())); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SetMcpServerTimeoutResponse{}, nil
}
