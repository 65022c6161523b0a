package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/tools"
)

// AnswerAsk answers the task's open ask. Approving an error_retry row while the task waits to
// retry a failed request ("Retry now") ends the wait instead.
func (s *Services) AnswerAsk(ctx context.Context, req *cairnv1.AnswerAskRequest) (*cairnv1.AnswerAskResponse, error) {
	t, err := s.taskOn(ctx, req.GetTaskId(), req.GetHostId())
	if err != nil {
		return nil, err
	}
	ans := tools.Answer{Text: req.GetText(), Images: req.GetImages(), Files: req.GetFiles()}
	switch req.GetResponse() {
	case cairnv1.AskResponse_ASK_RESPONSE_APPROVE:
		ans.Approved = true
	case cairnv1.AskResponse_ASK_RESPONSE_REJECT, cairnv1.AskResponse_ASK_RESPONSE_MESSAGE:
	default:
		return nil, status.Error(codes.InvalidArgument, "response is required")
	}
	idx := -1 // unset: answer whatever is open
	if req.MessageIndex != nil {
		idx = int(req.GetMessageIndex())
		if idx < 0 {
			return nil, status.Error(codes.InvalidArgument, "message_index must not be negative")
		}
	}
	if err := t.Answer(idx, ans); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.AnswerAskResponse{}, nil
}
