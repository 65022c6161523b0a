package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// assembled is what a replayed stream amounts to: the chunks as the adapter returned them and
// the message they add up to.
type assembled struct {
	Chunks    []llm.Chunk
	Text      string
	Reasoning string
	ToolCalls []llm.ToolCall
	Finish    string
	Usage     *llm.Usage
}

func TestToolCallStreams(t *testing.T) {
	for _, file := range []string{
		"openai_tool_call_split.sse",
		"openai_parallel_tool_calls.sse",
		"openai_tool_call_length.sse",
		"deepseek_reasoner_tool_call.sse",
		"deepseek.sse",
	} {
		t.Run(file, func(t *testing.T) {
			p, _ := replay(t, file)
			s, err := p.Stream(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}}}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			var got assembled
			var calls llm.ToolCalls
			for {
				c, err := s.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("Recv: %v", err)
				}
				got.Chunks = append(got.Chunks, c)
				got.Text += c.Text
				got.Reasoning += c.Reasoning
				for _, d := range c.ToolCalls {
					calls.Add(d)
				}
				if c.FinishReason != "" {
					got.Finish = c.FinishReason
				}
				if c.Usage != nil {
					got.Usage = c.Usage
				}
			}
			got.ToolCalls = calls.Calls()
			goldenJSON(t, strings.TrimSuffix(file, ".sse")+".golden.json", got)
		})
	}
}

// TestNativeHistoryRequest checks the wire form of a native history: tool calls on the
// assistant message, one role "tool" message per result right after it, the rest of the user
// turn after those, reasoning never sent back, tools and reasoning_effort in the request.
func TestNativeHistoryRequest(t *testing.T) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p := New(Config{BaseURL: srv.URL + "/v1", APIKey: "k"})
	req := llm.Request{
		Model:           "gpt-5-mini",
		System:          "sys",
		ReasoningEffort: "low",
		Tools: []llm.ToolDef{{Name: "read_file", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The path."}},"required":["path"]}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\nread a and b\n</task>")}},
			{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Reading both.")}, ToolCalls: []llm.ToolCall{
				{ID: "call_A1", Name: "read_file", Arguments: `{"path":"a.go"}`},
				{ID: "call_B2", Name: "read_file", Arguments: `{"path":"b.`},
			}},
			{Role: llm.RoleUser, Content: []llm.Content{
				llm.ToolResult("call_A1", "[read_file for 'a.go'] Result:\npackage a"),
				llm.ToolResult("call_B2", "not run"),
				llm.Text("<environment_details>\nnow\n</environment_details>"),
			}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_C3", Name: "read_file", Arguments: `{"path":"c.go"}`}}},
			{Role: llm.RoleUser, Content: []llm.Content{llm.ToolResult("call_C3", "[read_file for 'c.go'] Result:\npackage c")}},
		},
	}
	s, err := p.Stream(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := s.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(body, []byte("reasoning_content")) {
		t.Error("the request sends reasoning back")
	}
	goldenJSON(t, "native_request.golden.json", v)
}

// goldenJSON compares v, as indented JSON, with testdata/name.
func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, "testdata/"+name, string(got)+"\n")
}

// TestFakeModelToolCalls plays the fake model's tool-call turns through the adapter: split
// arguments and parallel calls assemble into the scripted calls, and finish_reason follows.
func TestFakeModelToolCalls(t *testing.T) {
	calls := []llmtest.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{Name: "write_to_file", Arguments: `{"path":"b.go","content":"package b\n"}`},
	}
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Two calls.", Reasoning: "Both files.", ToolCalls: calls, ChunkSize: 3},
		{ToolCalls: calls[:1], FinishReason: "length"},
	}})
	p := New(Config{BaseURL: srv.URL(), APIKey: "k"})
	for i, want := range []struct {
		calls  []llm.ToolCall
		finish string
	}{
		{[]llm.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`},
			{ID: "call_1_1", Name: "write_to_file", Arguments: `{"path":"b.go","content":"package b\n"}`}}, "tool_calls"},
		{[]llm.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`}}, "length"},
	} {
		s, err := p.Stream(t.Context(), llm.Request{Model: "fake", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("go")}}}})
		if err != nil {
			t.Fatal(err)
		}
		var acc llm.ToolCalls
		finish, pieces := "", 0
		for {
			c, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			pieces += len(c.ToolCalls)
			for _, d := range c.ToolCalls {
				acc.Add(d)
			}
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got, wantCalls := mustJSON(t, acc.Calls()), mustJSON(t, want.calls); got != wantCalls || finish != want.finish {
			t.Errorf("turn %d: calls %s finish %q; want %s %q", i, got, finish, wantCalls, want.finish)
		}
		if i == 0 && pieces <= len(calls) {
			t.Errorf("turn %d: arguments came in %d pieces, not split", i, pieces)
		}
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
