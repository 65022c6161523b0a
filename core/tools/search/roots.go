package search

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/workspace"
)

// rooted is the part of the workspace that knows every root (*workspace.Workspace has it).
type rooted interface {
	Roots() []workspace.Root
}

// InRoots searches several folders as one search (`.` with several workspace
// roots covers them all): each folder's files in path order, the folders in the order given,
// and opts.MaxResults applied to the total. A folder lying inside an earlier one is skipped,
// since the earlier walk already covered it. With one folder it is exactly Search.
func InRoots(ctx context.Context, roots []string, opts Options) (Results, error) {
	if len(roots) == 1 {
		return Search(ctx, roots[0], opts)
	}
	limit := opts.MaxResults
	if limit <= 0 {
		limit = DefaultMaxResults
	}
	var out Results
	for i, root := range roots {
		if coveredBy(roots[:i], root) {
			continue
		}
		o := opts
		left := limit - out.Total
		if left == 0 {
			// The total is full: one more match anywhere only means "there are more".
			o.MaxResults = 1
			res, err := Search(ctx, root, o)
			if err != nil {
				return Results{}, err
			}
			if res.Total > 0 {
				out.More = true
				break
			}
			continue
		}
		o.MaxResults = left
		res, err := Search(ctx, root, o)
		if err != nil {
			return Results{}, err
		}
		out.Files = append(out.Files, res.Files...)
		out.Total += res.Total
		if res.More {
			out.More = true
			break
		}
	}
	return out, nil
}

// coveredBy reports whether dir is one of roots or lies below one of them.
func coveredBy(roots []string, dir string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// searchedRoots returns the folders a search of abs covers: every root, primary first, when
// abs is the primary root of a workspace with several roots; abs alone otherwise.
func searchedRoots(fs any, primary, abs string) []string {
	rs, ok := fs.(rooted)
	if !ok || abs != primary {
		return []string{abs}
	}
	roots := rs.Roots()
	if len(roots) < 2 {
		return []string{abs}
	}
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = r.Path
	}
	return out
}
