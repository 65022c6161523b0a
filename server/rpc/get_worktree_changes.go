package rpc

import (
	"context"
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/server/hostbridge"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// GetWorktreeChanges lists what a task changed in its worktree against the commit it started
// from and, when asked, shows it in the named editor as one multi-file diff (left: the base
// content, right: the file in the worktree).
func (s *Services) GetWorktreeChanges(ctx context.Context, req *cairnv1.GetWorktreeChangesRequest) (*cairnv1.GetWorktreeChangesResponse, error) {
	wm, err := s.worktrees()
	if err != nil {
		return nil, err
	}
	w, err := wm.Get(req.GetTaskId())
	if err != nil {
		return nil, worktreeStatus(err)
	}
	changes, err := wm.Changes(ctx, w.TaskID)
	if err != nil {
		return nil, worktreeStatus(err)
	}
	resp := &cairnv1.GetWorktreeChangesResponse{Title: clean(w.Title)}
	shown := make([]hostbridge.DiffFile, 0, len(changes))
	for _, c := range changes {
		base, _, err := wm.BaseContent(ctx, w.TaskID, c.Path)
		if err != nil {
			return nil, worktreeStatus(err)
		}
		before := limitText(string(base))
		abs := filepath.Join(w.Path, filepath.FromSlash(c.Path))
		resp.Files = append(resp.Files, &cairnv1.WorktreeFileChange{Path: clean(c.Path), Status: c.Status,
			Before: clean(before), WorktreePath: clean(abs)})
		after := ""
		if c.Status != "D" {
			data, err := readFileLimited(abs)
			if err != nil {
				return nil, toStatus(err)
			}
			after = data
		}
		shown = append(shown, hostbridge.DiffFile{Path: abs, Left: before, Right: after})
	}
	if !req.GetShowInEditor() || len(shown) == 0 || s.b.Hosts == nil {
		return resp, nil
	}
	h, ok := s.b.Hosts.Get(req.GetHostId())
	if !ok {
		return nil, status.Error(codes.FailedPrecondition, "no editor is connected to show the diff in")
	}
	if err := h.MultiDiff(ctx, "Changes of "+w.Branch, shown); err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return resp, nil
}
