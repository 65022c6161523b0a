package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
)

// ListModels asks the endpoint for its models, with what its catalogue says about each.
func (s *Services) ListModels(ctx context.Context, req *cairnv1.ListModelsRequest) (*cairnv1.ListModelsResponse, error) {
	cur := s.b.Settings.Get()
	base, key, preset := req.GetBaseUrl(), req.GetApiKey(), req.GetPreset()
	if base == "" {
		base = cur.API.BaseURL
	}
	if key == "" {
		key = cur.API.APIKey
	}
	if preset == "" {
		preset = cur.API.Preset
	}
	if preset == presets.VSCodeLM {
		return s.editorModels(ctx, req.GetHostId())
	}
	if s.b.Env == nil {
		return nil, status.Error(codes.Unavailable, "this daemon cannot list models")
	}
	models, err := s.b.Env.Models(ctx, preset, base, key)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &cairnv1.ListModelsResponse{}
	for _, m := range models {
		out.Models = append(out.Models, clean(m.ID))
		out.Entries = append(out.Entries, toModelEntry(m))
	}
	return out, nil
}

// editorModels lists the language models of the editor with the host id (the vscode-lm
// preset), or of any editor offering them when the request names none: they have no price,
// and their window is their maxInputTokens.
func (s *Services) editorModels(ctx context.Context, hostID string) (*cairnv1.ListModelsResponse, error) {
	if s.b.Hosts == nil {
		return nil, status.Error(codes.FailedPrecondition, vscodelm.ErrNeedsEditor.Error())
	}
	var list func(context.Context) ([]vscodelm.Model, error)
	if hostID != "" {
		list = s.b.Hosts.Ref(hostID, nil).Models
	} else if h, ok := s.b.Hosts.LanguageModelHost(); ok {
		list = h.Models
	} else {
		return nil, status.Error(codes.FailedPrecondition, vscodelm.ErrNeedsEditor.Error())
	}
	models, err := list(ctx)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	out := &cairnv1.ListModelsResponse{}
	for _, m := range models {
		out.Models = append(out.Models, clean(m.ID))
		out.Entries = append(out.Entries, &cairnv1.ModelEntry{Id: clean(m.ID), ContextWindow: int64(m.MaxInputTokens),
			Vendor: clean(m.Vendor), Family: clean(m.Family), Name: clean(m.Name)})
	}
	return out, nil
}
