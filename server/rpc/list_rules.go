package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/rules"
)

// ListRules lists rules files and workflows with their toggles.
func (s *Services) ListRules(_ context.Context, req *cairnv1.ListRulesRequest) (*cairnv1.ListRulesResponse, error) {
	toggles := s.b.Settings.Get().RuleToggles
	rs, err := rules.Load(req.GetWorkspaceRoot(), s.b.Dirs.GlobalRules, toggles)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &cairnv1.ListRulesResponse{}
	for _, r := range rs {
		out.Rules = append(out.Rules, &cairnv1.RuleEntry{Id: r.ID, Name: r.Name, Path: r.Path, Source: string(r.Source),
			Enabled: r.Enabled, Global: r.Source == rules.SourceGlobal})
	}
	wfs, err := rules.Workflows(req.GetWorkspaceRoot(), s.b.Dirs.GlobalWorkflows, toggles)
	if err != nil {
		return nil, toStatus(err)
	}
	for _, w := range wfs {
		out.Rules = append(out.Rules, &cairnv1.RuleEntry{Id: w.ID, Name: w.Name, Path: w.Path, Source: "workflow",
			Enabled: w.Enabled, Workflow: true, Global: w.Global})
	}
	return out, nil
}
