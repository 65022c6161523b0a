package llm

import (
	"reflect"
	"testing"
)

func TestToolCallsAssemble(t *testing.T) {
	tests := []struct {
		name   string
		deltas []ToolCallDelta
		want   []ToolCall
	}{
		{"split arguments", []ToolCallDelta{
			{Index: 0, ID: "a", Name: "read_file"}, {Index: 0, Arguments: `{"pa`}, {Index: 0, Arguments: `th":"x"}`},
		}, []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}}},
		{"parallel, interleaved", []ToolCallDelta{
			{Index: 0, ID: "a", Name: "read_file"}, {Index: 1, ID: "b", Name: "list_files"},
			{Index: 1, Arguments: `{}`}, {Index: 0, Arguments: `{"path":"x"}`},
		}, []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}, {ID: "b", Name: "list_files", Arguments: `{}`}}},
		{"name repeated on every piece", []ToolCallDelta{
			{Index: 0, ID: "a", Name: "read_file", Arguments: `{`}, {Index: 0, Name: "read_file", Arguments: `}`},
		}, []ToolCall{{ID: "a", Name: "read_file", Arguments: `{}`}}},
		{"name in pieces", []ToolCallDelta{{Index: 0, ID: "a", Name: "read_"}, {Index: 0, Name: "file"}},
			[]ToolCall{{ID: "a", Name: "read_file"}}},
		{"first index not zero", []ToolCallDelta{{Index: 3, ID: "z", Name: "n"}},
			[]ToolCall{{ID: "z", Name: "n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a ToolCalls
			for _, d := range tt.deltas {
				a.Add(d)
			}
			if !reflect.DeepEqual(a.Calls(), tt.want) || a.Len() != len(tt.want) {
				t.Errorf("got %+v, want %+v", a.Calls(), tt.want)
			}
		})
	}
}

func TestToolFormatInTable(t *testing.T) {
	tests := []struct {
		id       string
		override string
		native   bool
		effort   bool
	}{
		{"gpt-5", "", true, true},
		{"openai/gpt-5-mini", "", true, true},
		{"gpt-4.1-2025-04-14", "", true, false},
		{"anthropic/claude-sonnet-4.5", "", true, false},
		{"claude-sonnet-4-5-20250929", "", true, false},
		{"o3-mini", "", true, true},
		{"gpt-4o", "", false, false},
		{"deepseek-reasoner", "", false, false},
		{"some-local-model", "", false, false},
		{"some-local-model", ToolFormatNative, true, false},
		{"gpt-5", ToolFormatXML, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.override, func(t *testing.T) {
			info := ResolveModel(tt.id, &ModelInfoOverride{ToolFormat: tt.override})
			if info.NativeTools() != tt.native || info.ReasoningEffort != tt.effort {
				t.Errorf("native %v effort %v, want %v %v", info.NativeTools(), info.ReasoningEffort, tt.native, tt.effort)
			}
		})
	}
}
