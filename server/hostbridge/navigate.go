package hostbridge

import (
	"context"

	"github.com/cairnhq/cairn/core/tools/nav"
	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
)

// Navigate asks the editor's own providers (VS Code's definition and reference providers)
// where the symbol at abs's 1-based line and column (UTF-16 code units) is defined, or used
// when references is set (docs/tools.md, "Code navigation").
func (h *Host) Navigate(ctx context.Context, references bool, abs string, line, column int) ([]nav.Location, error) {
	kind := hostv1.NavigateRequest_KIND_DEFINITION
	if references {
		kind = hostv1.NavigateRequest_KIND_REFERENCES
	}
	resp, err := h.call(ctx, &hostv1.Request{Request: &hostv1.Request_Navigate{Navigate: &hostv1.NavigateRequest{
		Kind: kind, Path: abs, Line: int32(line), Column: int32(column)}}})
	if err != nil {
		return nil, err
	}
	places := resp.GetNavigate().GetPlaces()
	out := make([]nav.Location, 0, len(places))
	for _, p := range places {
		out = append(out, nav.Location{Path: p.GetPath(), Line: int(p.GetLine())})
	}
	return out, nil
}

// Navigate asks the editor connected now, when it offers the editor's services; offered is
// false when none does (the task then asks the daemon's language servers).
func (f *Ref) Navigate(ctx context.Context, references bool, abs string, line, column int) (locs []nav.Location, offered bool, err error) {
	h, ok := f.current(offersEditor)
	if !ok {
		return nil, false, nil
	}
	locs, err = h.Navigate(ctx, references, abs, line, column)
	return locs, true, err
}
