package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ToggleHook switches one hook on or off.
func (s *Services) ToggleHook(_ context.Context, req *cairnv1.ToggleHookRequest) (*cairnv1.ToggleHookResponse, error) {
	root, err := hookRoot(req.GetWorkspaceRoot())
	if err != nil {
		return nil, err
	}
	h, err := s.findHook(root, req.GetPath())
	if err != nil {
		return nil, err
	}
	if err := s.b.Hooks.SetHookEnabled(h, req.GetEnabled()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ToggleHookResponse{}, nil
}
