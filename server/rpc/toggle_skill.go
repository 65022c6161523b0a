package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ToggleSkill enables or disables a skill by id.
func (s *Services) ToggleSkill(_ context.Context, req *cairnv1.ToggleSkillRequest) (*cairnv1.ToggleSkillResponse, error) {
	if req.GetId() == "" {
		return nil, status.Error(codes.InvalidArgument, "id is required")
	}
	cur := s.b.Settings.Get()
	if cur.SkillToggles == nil {
		cur.SkillToggles = map[string]bool{}
	}
	cur.SkillToggles[req.GetId()] = req.GetEnabled()
	if err := s.b.Settings.Set(cur); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.ToggleSkillResponse{}, nil
}
