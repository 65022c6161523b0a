package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/task"
)

// RestoreCheckpoint puts a task's files, conversation, or both back to a checkpoint row. The
// task is cancelled first and asks to be resumed afterwards; subscribers receive a new
// snapshot when the conversation was cut.
func (s *Services) RestoreCheckpoint(ctx context.Context, req *cairnv1.RestoreCheckpointRequest) (*cairnv1.RestoreCheckpointResponse, error) {
	var kind task.RestoreKind
	switch req.GetKind() {
	case cairnv1.RestoreKind_RESTORE_KIND_FILES:
		kind = task.RestoreFiles
	case cairnv1.RestoreKind_RESTORE_KIND_TASK:
		kind = task.RestoreTask
	case cairnv1.RestoreKind_RESTORE_KIND_BOTH:
		kind = task.RestoreBoth
	default:
		return nil, status.Error(codes.InvalidArgument, "kind is required")
	}
	if req.MessageIndex == nil {
		return nil, status.Error(codes.InvalidArgument, "message_index is required")
	}
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	var files task.FilesRestorer
	if s.b.Env != nil {
		roots := t.Workspace()
		files = func(ctx context.Context, hash string) error { return s.b.Env.CheckpointRestoreFiles(ctx, roots, hash) }
	}
	if err := t.Restore(ctx, int(req.GetMessageIndex()), kind, files); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.RestoreCheckpointResponse{}, nil
}
