// Package vscodelm is the `vscode-lm` provider: the editor's own language models (the VS Code
// Language Model API, README "Providers") behind core/llm's streaming interface. The daemon
// never reaches these models itself; every request goes to the editor that started the task,
// through a Bridge (the host bridge in the daemon), and the editor streams the reply back.
//
// The api.preset `vscode-lm` (presets.VSCodeLM) selects it. The package maps Cairn's
// provider-neutral request onto the shape the API takes and back:
//
//   - The API has no system role. The system prompt travels as the first text part of the
//     first user message, between two marker lines (systemOpen, systemClose), so the model
//     sees it first and the conversation still alternates user and assistant.
//   - Native tools are offered as tool definitions (LanguageModelChatTool in the editor); an
//     assistant message's tool calls become tool-call parts, and the user message after it
//     answers each with a tool-result part, placed before the message's text.
//   - Images are not sent: the API of VS Code 1.100 takes text only, so each image becomes a
//     short note in its place (the provider's models are marked as not reading images).
//
// It is a leaf over core/llm: it returns errors and never logs.
package vscodelm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
)

// Role is who authored a message, as the API knows it (no system role).
type Role string

// Roles of the API.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PartKind tells a Part's kind.
type PartKind string

// Part kinds: text, an assistant's tool call, a user's tool result.
const (
	PartText       PartKind = "text"
	PartToolCall   PartKind = "tool_call"
	PartToolResult PartKind = "tool_result"
)

// Part is one piece of a message.
type Part struct {
	Kind PartKind
	// Text is a text part's text, or a tool result's content.
	Text string
	// CallID names the tool call (tool calls and results).
	CallID string
	// Name and Input are a tool call's tool and its JSON object of arguments.
	Name  string
	Input string
}

// Message is one message of the API.
type Message struct {
	Role  Role
	Parts []Part
}

// ChatRequest is one request to an editor model.
type ChatRequest struct {
	// Model is the id of the editor's model (Model.ID).
	Model    string
	Messages []Message
	// Tools are offered for native tool calling; empty: the model calls tools in its text.
	Tools []llm.ToolDef
}

// Model is one of the editor's models.
type Model struct {
	ID     string
	Vendor string
	Family string
	Name   string
	// MaxInputTokens is the most the model reads in one request (its context window); 0 when
	// the editor did not say.
	MaxInputTokens int
}

// Label is how the task header names the model: "vendor · family".
func (m Model) Label() string {
	switch {
	case m.Vendor != "" && m.Family != "":
		return m.Vendor + " · " + m.Family
	case m.Family != "":
		return m.Family
	case m.Name != "":
		return m.Name
	}
	return m.ID
}

// Reply is one event of a streamed answer: text, a complete tool call, or the end.
type Reply struct {
	Text     string
	ToolCall *llm.ToolCall
	// End is set on the last event: the token counts, and why the request failed if it did.
	End *End
}

// End closes a streamed answer.
type End struct {
	InputTokens  int64
	OutputTokens int64
	// Estimated: the API reported no usage, so the counts are the model's own countTokens of
	// the request and the reply.
	Estimated bool
	// Code is empty when the request succeeded; Message is the editor's text for a failure.
	Code    Code
	Message string
}

// Bridge is the editor end of the provider. Implementations must be safe for concurrent use.
type Bridge interface {
	// Chat starts a request. An error here means the editor never took it (not connected, no
	// such model); later failures arrive as an End with a Code. The caller must Close the
	// stream; cancelling ctx cancels the request in the editor.
	Chat(ctx context.Context, req ChatRequest) (ReplyStream, error)
	// Models lists the editor's models.
	Models(ctx context.Context) ([]Model, error)
}

// ReplyStream is one answer being received. Recv returns the End as the last Reply, then
// io.EOF; any error ends the stream. Close stops the request when it is still running and is
// safe to call twice.
type ReplyStream interface {
	Recv() (Reply, error)
	Close() error
}

// Provider is llm.Provider over a Bridge.
type Provider struct {
	b Bridge
}

var _ llm.Provider = (*Provider)(nil)

// New returns the provider that sends requests through b.
func New(b Bridge) *Provider { return &Provider{b: b} }

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request) (llm.Stream, error) {
	rs, err := p.b.Chat(ctx, MapRequest(req))
	if err != nil {
		return nil, err
	}
	return &stream{rs: rs, model: req.Model}, nil
}

// Models implements llm.Provider: the ids of the editor's models.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	ms, err := p.b.Models(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Marker lines around the system prompt in the first user message.
const (
	systemOpen  = "<system_instructions>\nThese are your system instructions from Cairn, the coding agent you are working in. Follow them above everything else in this conversation.\n"
	systemClose = "\n</system_instructions>"
)

// imageNote replaces an image the API cannot carry.
const imageNote = "[An image was attached here; the editor's language model API takes text only, so it was left out.]"

// MapRequest turns Cairn's request into the API's messages (see the package comment for how
// the system prompt and images are carried).
func MapRequest(req llm.Request) ChatRequest {
	out := ChatRequest{Model: req.Model, Tools: req.Tools}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, mapMessage(m))
	}
	if req.System != "" {
		sys := Part{Kind: PartText, Text: systemOpen + req.System + systemClose}
		if len(out.Messages) > 0 && out.Messages[0].Role == RoleUser {
			first := &out.Messages[0]
			// Tool results lead a user message; the instructions go after them only in the
			// (unexpected) case of a history that starts with results.
			at := 0
			for at < len(first.Parts) && first.Parts[at].Kind == PartToolResult {
				at++
			}
			first.Parts = append(first.Parts[:at:at], append([]Part{sys}, first.Parts[at:]...)...)
		} else {
			out.Messages = append([]Message{{Role: RoleUser, Parts: []Part{sys}}}, out.Messages...)
		}
	}
	return out
}

func mapMessage(m llm.Message) Message {
	if m.Role == llm.RoleAssistant {
		out := Message{Role: RoleAssistant}
		for _, c := range m.Content {
			if c.Type == llm.ContentText && c.Text != "" {
				out.Parts = append(out.Parts, Part{Kind: PartText, Text: c.Text})
			}
		}
		for _, tc := range m.ToolCalls {
			in := strings.TrimSpace(tc.Arguments)
			if in == "" {
				in = "{}"
			}
			out.Parts = append(out.Parts, Part{Kind: PartToolCall, CallID: tc.ID, Name: tc.Name, Input: in})
		}
		return out
	}
	// The API wants a user message's tool results before anything else in it.
	out := Message{Role: RoleUser}
	var rest []Part
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentToolResult:
			out.Parts = append(out.Parts, Part{Kind: PartToolResult, CallID: c.ToolCallID, Text: c.Text})
		case llm.ContentImage:
			rest = append(rest, Part{Kind: PartText, Text: imageNote})
		default:
			if c.Text != "" {
				rest = append(rest, Part{Kind: PartText, Text: c.Text})
			}
		}
	}
	out.Parts = append(out.Parts, rest...)
	return out
}

// stream is llm.Stream over a ReplyStream: text as text chunks, each tool call as one
// complete delta at its own index, the end as usage and a finish reason.
type stream struct {
	rs    ReplyStream
	model string
	calls int
	ended bool
}

func (s *stream) Recv() (llm.Chunk, error) {
	if s.ended {
		return llm.Chunk{}, io.EOF
	}
	r, err := s.rs.Recv()
	if errors.Is(err, io.EOF) {
		// The editor's stream ended without its End: the reply is cut off.
		return llm.Chunk{}, io.ErrUnexpectedEOF
	}
	if err != nil {
		return llm.Chunk{}, err
	}
	switch {
	case r.End != nil:
		s.ended = true
		if r.End.Code != "" {
			return llm.Chunk{}, &Error{Code: r.End.Code, Model: s.model, Detail: r.End.Message}
		}
		finish := llm.FinishStop
		if s.calls > 0 {
			finish = llm.FinishToolCalls
		}
		return llm.Chunk{FinishReason: finish, Usage: &llm.Usage{InputTokens: r.End.InputTokens,
			OutputTokens: r.End.OutputTokens, Estimated: r.End.Estimated}}, nil
	case r.ToolCall != nil:
		tc := *r.ToolCall
		d := llm.ToolCallDelta{Index: s.calls, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
		s.calls++
		return llm.Chunk{ToolCalls: []llm.ToolCallDelta{d}}, nil
	}
	return llm.Chunk{Text: r.Text}, nil
}

func (s *stream) Close() error { return s.rs.Close() }

// String is for logs.
func (r ChatRequest) String() string {
	return fmt.Sprintf("vscode-lm request to %s: %d messages, %d tools", r.Model, len(r.Messages), len(r.Tools))
}
