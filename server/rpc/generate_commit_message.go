package rpc

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/commitmsg"
	"github.com/cairnhq/cairn/core/llm/presets"
)

// GenerateCommitMessage writes a commit message for a staged diff (README, "Commit messages")
// with the model of the task named, when it is loaded, else the shared settings' model, on
// the shared endpoint.
func (s *Services) GenerateCommitMessage(ctx context.Context, req *cairnv1.GenerateCommitMessageRequest) (*cairnv1.GenerateCommitMessageResponse, error) {
	set := s.b.Settings.Get()
	if t, ok := s.b.Tasks.Get(req.GetTaskId()); ok && req.GetTaskId() != "" {
		if m := t.State().Model; m != "" {
			set.API.Model = m
		}
	}
	if set.API.Model == "" {
		return nil, status.Error(codes.FailedPrecondition, "no model is set: choose one in Cairn's settings")
	}
	if set.API.Preset == presets.VSCodeLM {
		return nil, status.Error(codes.FailedPrecondition, "commit messages need a model endpoint; the editor's own models are not offered for them")
	}
	text, err := commitmsg.Write(ctx, agent.NewProvider(set), set.API.Model, req.GetDiff())
	if errors.Is(err, commitmsg.ErrNoChanges) {
		return nil, status.Error(codes.FailedPrecondition, "nothing is staged: stage the changes to describe first")
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.GenerateCommitMessageResponse{Message: text, Model: clean(set.API.Model)}, nil
}
