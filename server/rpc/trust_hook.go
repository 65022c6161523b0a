package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// TrustHook trusts a hook's content: the content the user reviewed when sha256 is given.
func (s *Services) TrustHook(_ context.Context, req *cairnv1.TrustHookRequest) (*cairnv1.TrustHookResponse, error) {
	root, err := hookRoot(req.GetWorkspaceRoot())
	if err != nil {
		return nil, err
	}
	h, err := s.findHook(root, req.GetPath())
	if err != nil {
		return nil, err
	}
	if _, err := s.b.Hooks.Trust(h, req.GetSha256()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.TrustHookResponse{}, nil
}
