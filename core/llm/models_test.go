package llm

import (
	"encoding/json"
	"math"
	"testing"
)

func TestEmbeddedModelTable(t *testing.T) {
	read := modelTable.Get()
	table, err := read.table, read.err
	if err != nil {
		t.Fatal(err)
	}
	for id, info := range table {
		if info.ContextWindow < 8000 || info.MaxOutput <= 0 || info.MaxOutput > info.ContextWindow {
			t.Errorf("%s: implausible window %d / max output %d", id, info.ContextWindow, info.MaxOutput)
		}
		if info.InputPrice <= 0 || info.OutputPrice < info.InputPrice {
			t.Errorf("%s: implausible prices in %.3f out %.3f", id, info.InputPrice, info.OutputPrice)
		}
		if info.CacheReadPrice > info.InputPrice {
			t.Errorf("%s: cache reads dearer than input", id)
		}
	}
}

func TestLookupModel(t *testing.T) {
	tests := []struct {
		id        string
		wantKnown bool
		window    int
		input     float64
	}{
		{"gpt-4o", true, 128000, 2.50},
		{"GPT-4o ", true, 128000, 2.50},
		{"gpt-4o-2024-08-06", true, 128000, 2.50},
		{"gpt-4o-mini-2024-07-18", true, 128000, 0.15},
		{"openai/gpt-4.1", true, 1047576, 2.00},
		{"deepseek-chat", true, 128000, 0.27},
		{"deepseek/deepseek-chat", true, 128000, 0.27},
		{"deepseek/deepseek-chat:free", true, 128000, 0.27},
		{"anthropic/claude-sonnet-4", true, 200000, 3.00},
		{"anthropic/claude-opus-4.1", true, 200000, 15.00},
		{"claude-sonnet-4-20250514", true, 200000, 3.00},
		{"claude-3-7-sonnet-20250219", true, 200000, 3.00},
		{"claude-sonnet-4-5", true, 200000, 3.00},
		{"claude-haiku-4-5-20251001", true, 200000, 1.00},
		{"google/gemini-2.5-pro", true, 1048576, 1.25},
		{"llama-3.3-70b-versatile", true, 131072, 0.59},
		{"grok-4-0709", true, 256000, 3.00},
		{"x-ai/grok-code-fast-1", true, 256000, 0.20},
		{"llama3.1:8b", false, DefaultContextWindow, 0},
		{"gpt-4oops", false, DefaultContextWindow, 0},
		{"", false, DefaultContextWindow, 0},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			info, known := LookupModel(tt.id)
			if known != tt.wantKnown || info.ContextWindow != tt.window || info.InputPrice != tt.input {
				t.Errorf("LookupModel(%q) = %+v, %v; want known=%v window=%d input=%.2f",
					tt.id, info, known, tt.wantKnown, tt.window, tt.input)
			}
		})
	}
}

func TestResolveModelOverride(t *testing.T) {
	var o ModelInfoOverride
	if err := json.Unmarshal([]byte(`{"context_window": 32768, "input": 0.5, "images": false}`), &o); err != nil {
		t.Fatal(err)
	}
	got := ResolveModel("gpt-4o", &o)
	want := ModelInfo{ContextWindow: 32768, MaxOutput: 16384, InputPrice: 0.5, OutputPrice: 10, CacheReadPrice: 1.25}
	if got != want {
		t.Errorf("ResolveModel = %+v, want %+v", got, want)
	}
	zero := 0
	if got := ResolveModel("my-local", &ModelInfoOverride{ContextWindow: &zero}); got.ContextWindow != DefaultContextWindow {
		t.Errorf("a zero window override gave %d, want the default", got.ContextWindow)
	}
	if got := ResolveModel("gpt-4o", nil); got.ContextWindow != 128000 {
		t.Errorf("nil override changed the info: %+v", got)
	}
}

func TestCost(t *testing.T) {
	sonnet, _ := LookupModel("anthropic/claude-sonnet-4")
	reported := 0.0421
	tests := []struct {
		name string
		info ModelInfo
		u    Usage
		want float64
	}{
		{"input and output", sonnet, Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 3 + 1.5},
		{"cache read and write", sonnet, Usage{InputTokens: 1000, CacheReadTokens: 100_000, CacheWriteTokens: 10_000}, 0.003 + 0.03 + 0.0375},
		{"provider cost wins", sonnet, Usage{InputTokens: 1_000_000, TotalCost: &reported}, reported},
		{"unknown model is free", UnknownModel, Usage{InputTokens: 5000, OutputTokens: 5000}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cost(tt.info, tt.u); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Cost = %.6f, want %.6f", got, tt.want)
			}
		})
	}
	if got := (Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4}).Total(); got != 10 {
		t.Errorf("Total = %d, want 10", got)
	}
}
