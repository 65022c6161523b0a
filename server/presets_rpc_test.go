package server_test

import (
	"context"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestListModelsEntriesAndPresets: GetState offers the presets; ListModels lists the
// endpoint's models with the facts the table knows, and an unknown model's prices as unknown.
func TestListModelsEntriesAndPresets(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Models: []string{"gpt-4o", "my-local-model"}}, servertest.Options{})
	ctx := context.Background()
	st, err := e.State.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, p := range st.GetPresets() {
		ids[p.GetId()] = true
	}
	for _, want := range []string{"openai", "openrouter", "ollama", "lmstudio", "vllm", "deepseek", "azure", "gemini", "anthropic"} {
		if !ids[want] {
			t.Errorf("preset %s not offered", want)
		}
	}
	resp, err := e.State.ListModels(ctx, &cairnv1.ListModelsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*cairnv1.ModelEntry{}
	for _, m := range resp.GetEntries() {
		got[m.GetId()] = m
	}
	if g := got["gpt-4o"]; g == nil || !g.GetPricesKnown() || g.GetInputPrice() != 2.5 || g.GetContextWindow() != 128000 {
		t.Errorf("gpt-4o: %v", g)
	}
	if m := got["my-local-model"]; m == nil || m.GetPricesKnown() {
		t.Errorf("my-local-model: %v", m)
	}
	if len(resp.GetModels()) != 2 {
		t.Errorf("models %v", resp.GetModels())
	}
}
