package llmtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Script is what the fake model will answer, one Turn per chat request, in order.
type Script struct {
	// Models is what GET /v1/models lists; empty means ["fake-model"].
	Models []string `json:"models,omitempty"`
	Turns  []Turn   `json:"turns"`
	// OnEnd answers requests after the last turn. Nil makes them a test failure (recorded
	// and answered with HTTP 500): a test that sends more requests than it scripted is wrong.
	OnEnd *Turn `json:"on_end,omitempty"`
	// PrefixCache makes the estimated usage behave like a provider's prompt cache: the part
	// of a request's prompt that repeats an earlier request's from the start is reported as
	// cached_tokens (prefixcache.go). Scripted usage is reported as written.
	PrefixCache bool `json:"prefix_cache,omitempty"`
	// ForgetText keeps only the counts of each answered request, not its messages or raw
	// body (Requests lists them without text): a load test's fake would otherwise hold
	// every prompt it was sent, in the same process as the daemon it measures. Estimated
	// usage is reported as without it.
	ForgetText bool `json:"forget_text,omitempty"`
	// Routes answer the requests whose first user message contains a route's marker from
	// that route's own turns, each route keeping its own place; every other request gets
	// Turns. Requests of tasks that run side by side (subagents) arrive in any order, and are
	// scripted this way. A route that ran out of turns is answered like Turns past its end.
	Routes []Route `json:"routes,omitempty"`
}

// Route is the script of the requests of one conversation, told apart by a marker.
type Route struct {
	FirstUserContains string `json:"first_user_contains"`
	Turns             []Turn `json:"turns"`
}

// Gate holds a turn's response until Count requests (this one included) have arrived at
// gates of the same Name; then all of them stream at once. It proves that requests were in
// flight together without timing anything. A gate still short of Count after GateWait is a
// recorded failure, and its requests are answered anyway.
type Gate struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Turn is the answer to one request (or to Times requests in a row).
type Turn struct {
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"` // streamed first as delta.reasoning_content
	// ChunkSize is how many bytes of Text each event carries, never splitting a UTF-8
	// sequence; 0 sends the whole text in one event.
	ChunkSize int `json:"chunk_size,omitempty"`
	// Delay is the pause before each content event.
	Delay Duration `json:"delay,omitempty"`
	// Usage is reported in the final usage event when the client asked for one (OpenAI's
	// stream_options.include_usage); nil reports a rough estimate (4 bytes a token).
	Usage *Usage `json:"usage,omitempty"`
	// ToolCalls are native tool calls streamed after Text, each in its own index (parallel
	// calls when there are several), their arguments split into pieces of ChunkSize bytes.
	// Arguments are sent as written: an unfinished JSON object plays a call cut off.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// FinishReason ends the stream; "" sends "stop", or "tool_calls" after tool calls.
	// "length" plays a reply cut off at the output-token limit.
	FinishReason string `json:"finish_reason,omitempty"`
	Fault        *Fault `json:"fault,omitempty"`
	// Times is how many consecutive requests this turn answers; 0 means 1. A 429 turn with
	// Times 2 fails twice, so the third try (a retry) gets the next turn.
	Times  int     `json:"times,omitempty"`
	Expect *Expect `json:"expect,omitempty"`
	Gate   *Gate   `json:"gate,omitempty"`
}

// ToolCall is one native tool call of a turn (or of a recorded request's assistant message).
type ToolCall struct {
	// ID is the call id; "" makes one up from the turn and the call's position.
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the wire usage a turn reports.
type Usage struct {
	PromptTokens     int64    `json:"prompt_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	CachedTokens     int64    `json:"cached_tokens,omitempty"` // prompt_tokens_details.cached_tokens
	Cost             *float64 `json:"cost,omitempty"`          // OpenRouter-style usage.cost
}

// Fault makes a turn misbehave. Status answers an HTTP error instead of streaming; the
// other faults happen mid-stream after At bytes of Text were sent.
type Fault struct {
	Status int `json:"status,omitempty"`
	// Body is the error body; empty means an OpenAI-style {"error": {...}} object.
	Body string `json:"body,omitempty"`
	// RetryAfter is sent verbatim as the Retry-After header.
	RetryAfter string `json:"retry_after,omitempty"`

	At        int      `json:"at,omitempty"`
	Cut       bool     `json:"cut,omitempty"`       // drop the connection, no [DONE]
	Malformed bool     `json:"malformed,omitempty"` // send an event that is not JSON, then end
	Stall     Duration `json:"stall,omitempty"`     // pause, then go on streaming
	Hang      bool     `json:"hang,omitempty"`      // send nothing more until the client gives up
}

// Expect is what the request answered by a turn must look like. Failures are recorded (see
// Server.Err), not answered differently: the client sees the scripted turn either way.
type Expect struct {
	Model string `json:"model,omitempty"`
	// LastUser* look at the text of the last user message.
	LastUserContains    []string `json:"last_user_contains,omitempty"`
	LastUserNotContains []string `json:"last_user_not_contains,omitempty"`
	// Contains/NotContains look at the text of every message, the system prompt included.
	Contains    []string `json:"contains,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
	// Messages, when non-zero, is the exact number of messages (system included).
	Messages int `json:"messages,omitempty"`
}

// Duration is a time.Duration written in JSON as "250ms" or as a number of milliseconds.
type Duration time.Duration

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("duration %s: want \"1.5s\" or milliseconds", b)
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}

// LoadScript reads a Script from JSON. Unknown fields are errors, so a typo in a fixture
// does not silently turn a fault off.
func LoadScript(r io.Reader) (Script, error) {
	var s Script
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("llmtest: script: %w", err)
	}
	return s, nil
}

//go:embed script_ended.md
var scriptEnded string

// EndTurn is a turn that finishes the task with attempt_completion, for demos and E2E runs
// whose script may run out before the agent is done.
func EndTurn() Turn { return Turn{Text: scriptEnded, ChunkSize: 32} }
