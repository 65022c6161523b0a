package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// StopCommand stops a command a task left running in the background (the chat's Stop button,
// README "Commands that keep running").
func (s *Services) StopCommand(ctx context.Context, req *cairnv1.StopCommandRequest) (*cairnv1.StopCommandResponse, error) {
	if req.GetCommandId() <= 0 {
		return nil, status.Error(codes.InvalidArgument, "command_id must be a command's number in the task (1, 2, …)")
	}
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	code, err := t.StopCommand(ctx, int(req.GetCommandId()))
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.StopCommandResponse{ExitCode: int32(code)}, nil
}
