package agent

import (
	"context"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
)

// ErrNeedsEditor refuses a vscode-lm task that no editor started (`cairn run`, `cairn acp`):
// the one message both commands show (README "Providers").
var ErrNeedsEditor error = &badRequest{cause: &vscodelm.ErrNeedsEditor}

// editorModelsWait bounds the listing of the editor's models when a task is assembled.
const editorModelsWait = 10 * time.Second

// usesEditorModels reports whether the settings choose the editor's own language models.
func usesEditorModels(s config.Settings) bool { return s.API.Preset == presets.VSCodeLM }

// editorBridge is the bridge to the editor's models for a task started by the editor hostID
// through host; ErrNeedsEditor when no editor started it.
func editorBridge(hostID string, host tools.Host) (vscodelm.Bridge, error) {
	b, ok := host.(vscodelm.Bridge)
	if hostID == "" || !ok {
		return nil, ErrNeedsEditor
	}
	return b, nil
}

// editorModels resolves a task's models among the editor's: the context window is the
// model's maxInputTokens (the settings' api.contextWindow wins), tools are native unless
// api.toolFormat says otherwise, images are not sent (the API takes text), and the requests
// are included with the editor's models (no price). A model the editor does not list now
// keeps the default window; its first request then says it is gone.
func (a *Assembler) editorModels(ctx context.Context, s config.Settings, b vscodelm.Bridge) *task.Models {
	ctx, stop := context.WithTimeout(ctx, editorModelsWait)
	defer stop()
	list, err := b.Models(ctx)
	if err != nil {
		a.cfg.Logger.Warn("listing the editor's language models", "err", err)
	}
	info := func(id string) llm.ModelInfo {
		i := llm.ModelInfo{ContextWindow: llm.DefaultContextWindow, ToolFormat: llm.ToolFormatNative, Included: true}
		for _, m := range list {
			if m.ID == id {
				if m.MaxInputTokens > 0 {
					i.ContextWindow = m.MaxInputTokens
				}
				i.Label = m.Label()
			}
		}
		if s.API.ContextWindow > 0 {
			i.ContextWindow = int(s.API.ContextWindow)
		}
		if s.API.ToolFormat != "" {
			i.ToolFormat = s.API.ToolFormat
		}
		return i
	}
	idle := time.Duration(s.API.RequestIdleTimeout) * time.Second
	m := &task.Models{Provider: llm.WithIdleTimeout(vscodelm.New(b), idle), Act: s.API.Model, ActInfo: info(s.API.Model)}
	if s.API.PlanModel != "" && s.API.PlanModel != s.API.Model {
		m.Plan, m.PlanInfo = s.API.PlanModel, info(s.API.PlanModel)
	} else if s.API.PlanModel != "" {
		m.Plan, m.PlanInfo = s.API.PlanModel, m.ActInfo
	}
	return m
}
