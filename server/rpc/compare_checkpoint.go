package rpc

import (
	"context"
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/server/hostbridge"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// CompareCheckpoint lists the files changed since a checkpoint row of a task (up to a later
// checkpoint or the working tree) and, when asked, shows them in the task's editor.
func (s *Services) CompareCheckpoint(ctx context.Context, req *cairnv1.CompareCheckpointRequest) (*cairnv1.CompareCheckpointResponse, error) {
	if req.MessageIndex == nil {
		return nil, status.Error(codes.InvalidArgument, "message_index is required")
	}
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	cp, err := t.CheckpointAt(int(req.GetMessageIndex()))
	if err != nil {
		return nil, toStatus(err)
	}
	if s.b.Env == nil {
		return nil, status.Error(codes.Unimplemented, "checkpoints are not available")
	}
	root, files, err := s.b.Env.CheckpointDiff(ctx, t.Workspace(), cp.Hash, req.GetToHash())
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &cairnv1.CompareCheckpointResponse{}
	for _, f := range files {
		resp.Files = append(resp.Files, &cairnv1.CheckpointFileDiff{Path: clean(f.Path), Before: clean(f.Before), After: clean(f.After)})
	}
	if !req.GetShowInEditor() || len(files) == 0 || s.b.Hosts == nil {
		return resp, nil
	}
	h, ok := s.b.Hosts.Get(t.HostID())
	if !ok {
		return resp, nil // no editor serves the task: the files are the answer
	}
	shown := make([]hostbridge.DiffFile, 0, len(files))
	for _, f := range files {
		shown = append(shown, hostbridge.DiffFile{Path: filepath.Join(root, filepath.FromSlash(f.Path)), Left: f.Before, Right: f.After})
	}
	title := "Changes since checkpoint " + short(cp.Hash)
	if to := req.GetToHash(); to != "" {
		title = "Changes from checkpoint " + short(cp.Hash) + " to " + short(to)
	}
	if err := h.MultiDiff(ctx, title, shown); err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return resp, nil
}

// short abbreviates a commit hash for a title.
func short(hash string) string {
	if len(hash) > 8 {
		return hash[:8]
	}
	return hash
}
