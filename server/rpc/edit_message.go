package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/task"
)

// EditMessage replaces a past user message: the task goes back to the checkpoint before it
// (files too, when checkpoints are on) and the new text is sent.
func (s *Services) EditMessage(ctx context.Context, req *cairnv1.EditMessageRequest) (*cairnv1.EditMessageResponse, error) {
	if req.MessageIndex == nil {
		return nil, status.Error(codes.InvalidArgument, "message_index is required")
	}
	t, err := s.taskOn(ctx, req.GetTaskId(), req.GetHostId())
	if err != nil {
		return nil, err
	}
	var files task.FilesRestorer
	if s.b.Env != nil {
		roots := t.Workspace()
		files = func(ctx context.Context, hash string) error { return s.b.Env.CheckpointRestoreFiles(ctx, roots, hash) }
	}
	if err := t.EditMessage(ctx, int(req.GetMessageIndex()), req.GetText(), req.GetImages(), files); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.EditMessageResponse{}, nil
}
