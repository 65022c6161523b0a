package vscodelm

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
)

func TestMapRequest(t *testing.T) {
	tools := []llm.ToolDef{{Name: "read_file", Description: "reads", Parameters: []byte(`{"type":"object"}`)}}
	tests := []struct {
		name string
		req  llm.Request
		want []Message
	}{
		{
			name: "system prompt leads the first user message",
			req: llm.Request{Model: "m", System: "You are Cairn.", Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Content{llm.Text("fix the bug")}}}},
			want: []Message{{Role: RoleUser, Parts: []Part{
				{Kind: PartText, Text: systemOpen + "You are Cairn." + systemClose},
				{Kind: PartText, Text: "fix the bug"}}}},
		},
		{
			name: "system prompt alone is a user message",
			req:  llm.Request{Model: "m", System: "S"},
			want: []Message{{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: systemOpen + "S" + systemClose}}}},
		},
		{
			name: "tool call and its result",
			req: llm.Request{Model: "m", Tools: tools, Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Content{llm.Text("read a.go")}},
				{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Reading.")},
					ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}, {ID: "c2", Name: "list_files"}}},
				{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[env details]"), llm.ToolResult("c1", "package a"),
					llm.ToolResult("c2", "a.go")}},
			}},
			want: []Message{
				{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: "read a.go"}}},
				{Role: RoleAssistant, Parts: []Part{{Kind: PartText, Text: "Reading."},
					{Kind: PartToolCall, CallID: "c1", Name: "read_file", Input: `{"path":"a.go"}`},
					{Kind: PartToolCall, CallID: "c2", Name: "list_files", Input: "{}"}}},
				// results first, then the text, whatever order they were stored in
				{Role: RoleUser, Parts: []Part{{Kind: PartToolResult, CallID: "c1", Text: "package a"},
					{Kind: PartToolResult, CallID: "c2", Text: "a.go"}, {Kind: PartText, Text: "[env details]"}}},
			},
		},
		{
			name: "an image becomes a note",
			req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{
				llm.Text("look"), {Type: llm.ContentImage, ImageMediaType: "image/png", ImageData: "AAAA"}}}}},
			want: []Message{{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: "look"}, {Kind: PartText, Text: imageNote}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MapRequest(tt.req)
			if got.Model != tt.req.Model || !reflect.DeepEqual(got.Tools, tt.req.Tools) {
				t.Fatalf("model %q tools %v; want %q %v", got.Model, got.Tools, tt.req.Model, tt.req.Tools)
			}
			if !reflect.DeepEqual(got.Messages, tt.want) {
				t.Fatalf("messages\n got %#v\nwant %#v", got.Messages, tt.want)
			}
		})
	}
}

// scriptBridge answers every Chat with its replies, and records the requests and closes.
type scriptBridge struct {
	replies []Reply
	err     error
	got     []ChatRequest
	closed  int
}

func (b *scriptBridge) Chat(_ context.Context, req ChatRequest) (ReplyStream, error) {
	b.got = append(b.got, req)
	if b.err != nil {
		return nil, b.err
	}
	return &scriptStream{b: b, replies: b.replies}, nil
}

func (b *scriptBridge) Models(context.Context) ([]Model, error) {
	return []Model{{ID: "gpt-x", Vendor: "copilot", Family: "gpt-x"}, {ID: "local"}}, nil
}

type scriptStream struct {
	b       *scriptBridge
	replies []Reply
}

func (s *scriptStream) Recv() (Reply, error) {
	if len(s.replies) == 0 {
		return Reply{}, io.EOF
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, nil
}

func (s *scriptStream) Close() error { s.b.closed++; return nil }

func drain(t *testing.T, st llm.Stream) ([]llm.Chunk, error) {
	t.Helper()
	var out []llm.Chunk
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
}

func TestStreamMapsRepliesToChunks(t *testing.T) {
	b := &scriptBridge{replies: []Reply{
		{Text: "I will "}, {Text: "edit."},
		{ToolCall: &llm.ToolCall{ID: "call-1", Name: "write_to_file", Arguments: `{"path":"a.txt","content":"hi"}`}},
		{ToolCall: &llm.ToolCall{ID: "call-2", Name: "read_file", Arguments: `{"path":"b"}`}},
		{End: &End{InputTokens: 120, OutputTokens: 9, Estimated: true}},
	}}
	p := New(b)
	st, err := p.Stream(context.Background(), llm.Request{Model: "gpt-x", System: "S",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("go")}}}})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil || b.closed != 1 {
		t.Fatalf("close: %v, closed %d times", err, b.closed)
	}
	var text strings.Builder
	var calls llm.ToolCalls
	var last llm.Chunk
	for _, c := range chunks {
		text.WriteString(c.Text)
		for _, d := range c.ToolCalls {
			calls.Add(d)
		}
		last = c
	}
	if text.String() != "I will edit." {
		t.Errorf("text %q", text.String())
	}
	want := []llm.ToolCall{{ID: "call-1", Name: "write_to_file", Arguments: `{"path":"a.txt","content":"hi"}`},
		{ID: "call-2", Name: "read_file", Arguments: `{"path":"b"}`}}
	if got := calls.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls %#v", got)
	}
	if last.FinishReason != llm.FinishToolCalls || last.Usage == nil ||
		*last.Usage != (llm.Usage{InputTokens: 120, OutputTokens: 9, Estimated: true}) {
		t.Errorf("last chunk %#v", last)
	}
	if len(b.got) != 1 || b.got[0].Model != "gpt-x" || len(b.got[0].Messages) != 1 {
		t.Errorf("bridge got %v", b.got)
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name      string
		replies   []Reply
		is        error
		permanent bool
		says      string
	}{
		{"no permissions", []Reply{{End: &End{Code: CodeNoPermissions}}}, llm.ErrForbidden, true, "did not allow"},
		{"blocked", []Reply{{Text: "par"}, {End: &End{Code: CodeBlocked, Message: "quota exceeded"}}}, llm.ErrForbidden, false, "quota exceeded"},
		{"not found", []Reply{{End: &End{Code: CodeNotFound}}}, llm.ErrNotFound, true, "has no language model"},
		{"gone", []Reply{{End: &End{Code: CodeGone}}}, llm.ErrNotFound, true, "no longer offered"},
		{"cut off", []Reply{{Text: "par"}}, io.ErrUnexpectedEOF, false, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := New(&scriptBridge{replies: tt.replies}).Stream(context.Background(), llm.Request{Model: "gpt-x"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = drain(t, st)
			if !errors.Is(err, tt.is) {
				t.Fatalf("error %v; want one matching %v", err, tt.is)
			}
			if llm.IsPermanent(err) != tt.permanent || llm.IsRetryable(err) && tt.permanent {
				t.Errorf("IsPermanent %v, IsRetryable %v", llm.IsPermanent(err), llm.IsRetryable(err))
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("message %q lacks %q", err, tt.says)
			}
		})
	}
}

func TestModelsAndLabel(t *testing.T) {
	ids, err := New(&scriptBridge{}).Models(context.Background())
	if err != nil || !reflect.DeepEqual(ids, []string{"gpt-x", "local"}) {
		t.Fatalf("models %v, %v", ids, err)
	}
	for _, tt := range []struct {
		m    Model
		want string
	}{
		{Model{ID: "i", Vendor: "copilot", Family: "gpt-4o", Name: "GPT-4o"}, "copilot · gpt-4o"},
		{Model{ID: "i", Name: "Local"}, "Local"},
		{Model{ID: "i"}, "i"},
	} {
		if got := tt.m.Label(); got != tt.want {
			t.Errorf("%+v: label %q; want %q", tt.m, got, tt.want)
		}
	}
}
