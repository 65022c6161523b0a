package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ToggleRule enables or disables a rule or workflow by id.
func (s *Services) ToggleRule(_ context.Context, req *cairnv1.ToggleRuleRequest) (*cairnv1.ToggleRuleResponse, error) {
	if req.GetId() == "" {
		return nil, status.Error(codes.InvalidArgument, "id is required")
	}
	cur := s.b.Settings.Get()
	if cur.RuleToggles == nil {
		cur.RuleToggles = map[string]bool{}
	}
	cur.RuleToggles[req.GetId()] = req.GetEnabled()
	if err := s.b.Settings.Set(cur); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ToggleRuleResponse{}, nil
}
