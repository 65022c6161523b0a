package settings

import (
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
)

// For answers each mode with its model: PLAN's own, a custom mode's own model and effort, a
// custom mode's effort on the ACT model, and the ACT model for the rest.
func TestForFollowsTheMode(t *testing.T) {
	act := llm.ModelInfo{ContextWindow: 100}
	models := &Models{Act: "act-model", ActInfo: act, Plan: "plan-model", PlanInfo: llm.ModelInfo{ContextWindow: 200}}
	own := map[string]Model{
		"review": {Name: "review-model", Info: llm.ModelInfo{ContextWindow: 300}, Effort: "high"},
		"quick":  {Effort: "low"},
		"same":   {Name: "act-model", Info: llm.ModelInfo{ContextWindow: 1}},
	}
	o := New(config.Settings{}, models, func(mode string) (Model, bool) {
		m, ok := own[mode]
		return m, ok
	})
	for _, tc := range []struct {
		mode, name, effort string
		window             int
	}{
		{"act", "act-model", "", 100},
		{PlanMode, "plan-model", "", 200},
		{"review", "review-model", "high", 300},
		{"quick", "act-model", "low", 100},
		{"same", "act-model", "", 100}, // the ACT model keeps its own info
		{"docs", "act-model", "", 100},
	} {
		got := o.For(tc.mode)
		if got.Name != tc.name || got.Effort != tc.effort || got.Info.ContextWindow != tc.window {
			t.Errorf("For(%q) = %s effort %q window %d, want %s %q %d", tc.mode, got.Name, got.Effort, got.Info.ContextWindow,
				tc.name, tc.effort, tc.window)
		}
	}
	if m := New(config.Settings{}, models, nil).For("review"); m.Name != "act-model" {
		t.Errorf("without mode models, a custom mode asks %s", m.Name)
	}
}
