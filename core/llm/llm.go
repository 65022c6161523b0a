// Package llm is Cairn's provider-neutral model layer: the request and chunk types the agent
// loop speaks, the Provider/Stream contract adapters implement, the provider-level retry and
// idle-timeout wrappers (docs/prompt.md, "Providers and retries"), the built-in model info
// table with cost arithmetic, and an offline token estimate (docs/prompt.md, "The context
// window").
//
// It imports no vendor SDK: adapters live in sub-packages (llm/openai) so the core never learns
// a wire format, and tests drive the loop with llmtest's scripted server.
//
// The composition root stacks the wrappers retry-outermost, so a stall before the first chunk
// is reported rather than silently retried for another idle period:
//
//	p := llm.WithRetry(llm.WithIdleTimeout(openai.New(cfg), idle), llm.DefaultRetryPolicy())
package llm

import (
	"context"
)

// Role is who authored a message. System text travels in Request.System, not as a message,
// because not every provider accepts a system role in the history.
type Role string

// Roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// ContentType tells a Content block's kind.
type ContentType string

// Content kinds. Images only appear in user messages (mentions, screenshots, pasted images).
const (
	ContentText  ContentType = "text"
	ContentImage ContentType = "image"
	// ContentToolResult answers a native tool call: ToolCallID names the call, Text is the
	// result. It only appears in user messages, which stand for the tool's turn; adapters send
	// it in their own form (OpenAI: a role "tool" message).
	ContentToolResult ContentType = "tool_result"
)

// Content is one block of a message.
type Content struct {
	Type ContentType
	Text string
	// ImageMediaType is the MIME type (image/png, image/jpeg, …) and ImageData the base64
	// payload without a data-URL prefix; adapters build whatever their wire format needs.
	ImageMediaType string
	ImageData      string
	// ToolCallID is set on ContentToolResult blocks.
	ToolCallID string `json:",omitempty"`
}

// Text is a convenience constructor for a text block.
func Text(s string) Content { return Content{Type: ContentText, Text: s} }

// ToolResult is a convenience constructor for a native tool call's result.
func ToolResult(callID, text string) Content {
	return Content{Type: ContentToolResult, ToolCallID: callID, Text: text}
}

// Message is one turn of the conversation. User and assistant messages alternate; in native
// tool calling an assistant message carries its ToolCalls and the user message after it
// carries one ContentToolResult per call.
type Message struct {
	Role    Role
	Content []Content
	// ToolCalls are the assistant's native tool calls, in the order the model made them.
	// Old stored histories have none (the field is omitted when empty).
	ToolCalls []ToolCall `json:",omitempty"`
}

// Request is one call to the model.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	MaxTokens int // 0 lets the provider choose
	// Temperature is a pointer because 0 is a meaningful value distinct from "provider default".
	Temperature *float64
	// Tools are offered for native tool calling; empty means the model calls tools in text.
	Tools []ToolDef
	// ReasoningEffort is "low", "medium" or "high" for models that take one; "" sends none.
	ReasoningEffort string
}

// Chunk is one piece of a streamed response. Any field may be empty; Usage arrives at most
// once per stream, usually last.
type Chunk struct {
	Text      string
	Reasoning string
	// ToolCalls are pieces of native tool calls; see ToolCallDelta.
	ToolCalls []ToolCallDelta
	Usage     *Usage
	// FinishReason is why the model stopped, on the chunk that says so: FinishStop,
	// FinishLength (the output-token limit), or the provider's own word.
	FinishReason string
}

// Finish reasons a provider reports.
const (
	FinishStop      = "stop"
	FinishLength    = "length"
	FinishToolCalls = "tool_calls"
)

// Usage counts the tokens of one request. The four counts are disjoint, whatever the
// provider's convention: InputTokens excludes tokens read from or written to the prompt cache,
// so Total is the size the request occupied in the context window.
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	// TotalCost is the provider-reported cost in USD, when it reports one; it wins over the
	// price table.
	TotalCost *float64
	// Estimated marks counts the provider did not report but estimated (the editor's models
	// count the request and the reply with the model's own tokenizer, core/llm/vscodelm).
	Estimated bool `json:",omitempty"`
}

// Total is every token the request consumed, used for context-window decisions.
func (u Usage) Total() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// Provider is a model endpoint. Implementations must be safe for concurrent use.
type Provider interface {
	// Stream starts a request. An error here means no response began (HTTP status, network,
	// auth); errors after the stream opened arrive from Recv. The caller must Close the stream.
	Stream(ctx context.Context, req Request) (Stream, error)
	// Models lists the model ids the endpoint offers.
	Models(ctx context.Context) ([]string, error)
}

// Stream is one response being received. Recv returns io.EOF after the last chunk; any other
// error ends the stream too. Close releases the connection and is safe to call twice; to
// abandon a Recv that is blocked, cancel the context given to Provider.Stream.
type Stream interface {
	Recv() (Chunk, error)
	Close() error
}
