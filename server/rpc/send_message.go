package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SendMessage answers the open ask with text, continues a finished task, or queues the text
// while the task runs.
func (s *Services) SendMessage(ctx context.Context, req *cairnv1.SendMessageRequest) (*cairnv1.SendMessageResponse, error) {
	t, err := s.taskOn(ctx, req.GetTaskId(), req.GetHostId())
	if err != nil {
		return nil, err
	}
	queued, err := t.Continue(req.GetText(), req.GetImages())
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SendMessageResponse{Queued: queued}, nil
}
