package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// AddRemoteMcpServer adds an SSE or Streamable HTTP MCP server.
func (s *Services) AddRemoteMcpServer(_ context.Context, req *cairnv1.AddRemoteMcpServerRequest) (*cairnv1.AddRemoteMcpServerResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	if err := hub.AddRemote(req.GetName(), req.GetUrl(), req.GetTransport()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.AddRemoteMcpServerResponse{}, nil
}
