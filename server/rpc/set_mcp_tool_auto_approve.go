package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SetMcpToolAutoApprove adds a tool to its server's autoApprove list or removes it.
func (s *Services) SetMcpToolAutoApprove(_ context.Context, req *cairnv1.SetMcpToolAutoApproveRequest) (*cairnv1.SetMcpToolAutoApproveResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	if req.GetServer() == "" {
		return nil, status.Error(codes.InvalidArgument, "server is required")
	}
	if err := hub.SetToolAutoApprove(req.GetServer(), req.GetTool(), req.GetAutoApprove()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SetMcpToolAutoApproveResponse{}, nil
}
