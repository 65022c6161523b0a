package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/hooks"
)

// EnableHooks records whether hooks run in a workspace (or from the global folder).
func (s *Services) EnableHooks(_ context.Context, req *cairnv1.EnableHooksRequest) (*cairnv1.EnableHooksResponse, error) {
	if s.b.Hooks == nil {
		return nil, status.Error(codes.FailedPrecondition, "this daemon keeps no hook trust")
	}
	scope := hooks.GlobalScope
	if !req.GetGlobal() {
		root, err := hookRoot(req.GetWorkspaceRoot())
		if err != nil {
			return nil, err
		}
		if root == "" {
			return nil, status.Error(codes.InvalidArgument, "workspace_root is required")
		}
		scope = root
	}
	if err := s.b.Hooks.SetEnabled(scope, req.GetEnabled()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.EnableHooksResponse{}, nil
}
