package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/skills"
)

// ListSkills lists skills with their toggles; a skill that cannot be used is listed with its
// problem rather than failing the list.
func (s *Services) ListSkills(_ context.Context, req *cairnv1.ListSkillsRequest) (*cairnv1.ListSkillsResponse, error) {
	all, err := skills.Find(req.GetWorkspaceRoot(), s.b.Dirs.GlobalSkills, s.b.Settings.Get().SkillToggles)
	if err != nil && len(all) == 0 {
		return nil, toStatus(err)
	}
	out := &cairnv1.ListSkillsResponse{}
	for _, sk := range all {
		out.Skills = append(out.Skills, &cairnv1.SkillEntry{Id: sk.ID, Name: sk.Name, Description: sk.Description,
			Path: sk.Path, Source: string(sk.Source), Enabled: sk.Enabled, Problem: sk.Problem})
	}
	return out, nil
}
