package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
)

// lmHost is an editor host that also offers its language models.
type lmHost struct {
	tools.Host
	models []vscodelm.Model
}

func (h lmHost) Chat(context.Context, vscodelm.ChatRequest) (vscodelm.ReplyStream, error) {
	return nil, errors.New("not in this test")
}

func (h lmHost) Models(context.Context) ([]vscodelm.Model, error) { return h.models, nil }

// lmEnv is fakeEnv whose editor offers language models.
type lmEnv struct {
	*fakeEnv
	models []vscodelm.Model
}

func (e lmEnv) Editor(id string, fallback tools.Host) (tools.Host, string) {
	h, name := e.fakeEnv.Editor(id, fallback)
	return lmHost{Host: h, models: e.models}, name
}

func TestEditorModelsNeedTheEditor(t *testing.T) {
	env := newEnv()
	env.set(func(s *config.Settings) {
		s.API.BaseURL, s.API.APIKey, s.API.Preset, s.API.Model = "", "", presets.VSCodeLM, "gpt-4o"
	})
	a := New(lmEnv{fakeEnv: env}, Config{})
	// `cairn run` and `cairn acp` start tasks without an editor.
	_, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}})
	if !errors.Is(err, ErrNeedsEditor) || !errors.Is(err, task.ErrBadRequest) || !errors.Is(err, vscodelm.ErrNeedsEditor) {
		t.Fatalf("without an editor: %v", err)
	}
}

func TestEditorModelsComeFromTheEditor(t *testing.T) {
	env := newEnv()
	env.set(func(s *config.Settings) {
		s.API.BaseURL, s.API.APIKey, s.API.Preset, s.API.Model = "", "", presets.VSCodeLM, "gpt-4o"
		s.API.PlanModel = "claude"
	})
	models := []vscodelm.Model{
		{ID: "gpt-4o", Vendor: "copilot", Family: "gpt-4o", Name: "GPT-4o", MaxInputTokens: 63_800},
		{ID: "claude", Vendor: "copilot", Family: "claude-sonnet-4", MaxInputTokens: 80_000},
	}
	a := New(lmEnv{fakeEnv: env, models: models}, Config{})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}, HostID: "window-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Turns.Close(); err != nil {
			t.Error(err)
		}
	})
	want := llm.ModelInfo{ContextWindow: 63_800, ToolFormat: llm.ToolFormatNative, Included: true, Label: "copilot · gpt-4o"}
	if d.Model != "gpt-4o" || d.ModelInfo != want {
		t.Fatalf("act model %q %+v; want %+v", d.Model, d.ModelInfo, want)
	}
	if d.PlanModel != "claude" || d.PlanModelInfo.ContextWindow != 80_000 || d.PlanModelInfo.Label != "copilot · claude-sonnet-4" {
		t.Fatalf("plan model %q %+v", d.PlanModel, d.PlanModelInfo)
	}
	if d.ModelInfo.InputPrice != 0 || d.ModelInfo.OutputPrice != 0 {
		t.Fatal("an editor model has a price")
	}
	// The model picker's change resolves among the editor's models again; the user's window
	// and tool format win.
	s := env.Settings()
	s.API.Model, s.API.PlanModel, s.API.ContextWindow, s.API.ToolFormat = "claude", "", 50_000, llm.ToolFormatXML
	m := d.Models(s)
	if m.Act != "claude" || m.ActInfo.ContextWindow != 50_000 || m.ActInfo.NativeTools() || !m.ActInfo.Included {
		t.Fatalf("after the change: %q %+v", m.Act, m.ActInfo)
	}
	// A model the editor does not list keeps the default window (its request says it is gone).
	s.API.Model, s.API.ContextWindow, s.API.ToolFormat = "vanished", 0, ""
	if m := d.Models(s); m.ActInfo.ContextWindow != llm.DefaultContextWindow || m.ActInfo.Label != "" {
		t.Fatalf("unlisted model: %+v", m.ActInfo)
	}
}
