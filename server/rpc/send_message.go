package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SendMessage answers the open ask with text, or continues a finished task.
func (s *Services) SendMessage(ctx context.Context, req *cairnv1.SendMessageRequest) (*cairnv1.SendMessageResponse, error) {
	t, err := s.taskOn(ctx, req.GetTaskId(), req.GetHostId())
	if err != nil {
		return nil, err
	}
	if err := t.Continue(req.GetText(), req.GetImages()); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.SendMessageResponse{}, nil
}
