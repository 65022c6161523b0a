package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/modes"
)

// ListModes lists the modes of a workspace (docs/modes.md); the files that were skipped are
// listed with why, never failing the list.
func (s *Services) ListModes(_ context.Context, req *cairnv1.ListModesRequest) (*cairnv1.ListModesResponse, error) {
	set := modes.Load(req.GetWorkspaceRoots(), s.b.Dirs.GlobalModes)
	out := &cairnv1.ListModesResponse{}
	for _, m := range set.Modes {
		groups := make([]string, len(m.Groups))
		for i, g := range m.Groups {
			groups[i] = string(g)
		}
		out.Modes = append(out.Modes, &cairnv1.ModeEntry{Slug: m.Slug, Name: clean(m.Name), Description: clean(m.Description),
			Groups: groups, EditPattern: clean(m.EditPattern), BuiltIn: m.BuiltIn(), Source: clean(m.Source)})
	}
	for _, p := range set.Problems {
		out.Problems = append(out.Problems, clean(p.String()))
	}
	return out, nil
}
