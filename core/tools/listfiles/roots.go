package listfiles

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/workspace"
)

// rooted is the part of the workspace that knows every root (*workspace.Workspace has it).
type rooted interface {
	Roots() []workspace.Root
}

// ListRoots lists every root of a workspace as one listing: the primary root's entries as
// List gives them, then each other root's entries labelled `name:path` (the form the tools
// accept), root by root, with limit applied to the total. A root lying inside an earlier one
// is skipped (the earlier listing holds it). An error of the primary root is returned; another
// root that cannot be listed is left out and logged. With one root it is exactly List.
func ListRoots(ctx context.Context, t Tree, roots []workspace.Root, recursive bool, limit int) (entries []string, truncated bool, err error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	entries, truncated, err = List(ctx, t, roots[0].Path, recursive, limit)
	if err != nil || truncated {
		return entries, truncated, err
	}
	for i, r := range roots[1:] {
		if covered(roots[:i+1], r.Path) {
			continue
		}
		left := limit - len(entries)
		probe := left == 0
		if probe {
			left = 1 // the total is full: one more entry only means "cut off"
		}
		more, cut, lerr := List(ctx, t, r.Path, recursive, left)
		if errors.Is(lerr, context.Canceled) || errors.Is(lerr, context.DeadlineExceeded) {
			return nil, false, lerr
		}
		if lerr != nil {
			slog.Warn("list_files: workspace root left out", "root", r.Path, "err", lerr)
			continue
		}
		if probe {
			if len(more) > 0 {
				return entries, true, nil
			}
			continue
		}
		for _, e := range more {
			entries = append(entries, r.Name+":"+e)
		}
		if cut {
			return entries, true, nil
		}
	}
	return entries, false, nil
}

// covered reports whether dir is one of roots or lies below one of them.
func covered(roots []workspace.Root, dir string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r.Path, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
