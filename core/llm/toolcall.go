package llm

import (
	"encoding/json"
	"strings"
)

// Tool formats: how a model calls tools.
const (
	// ToolFormatXML is Cline's protocol: calls are XML in the reply text. It is the default,
	// since every model can follow it.
	ToolFormatXML = "xml"
	// ToolFormatNative uses the provider's function calling: tool definitions in the request,
	// structured calls in the reply, results as tool messages.
	ToolFormatNative = "native"
)

// ToolDef describes one tool to a model that calls tools natively.
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

// ToolCall is one native tool call of an assistant message.
type ToolCall struct {
	// ID is the provider's call id; the result carries it back.
	ID   string
	Name string
	// Arguments is the JSON object text the model wrote.
	Arguments string
}

// ToolCallDelta is a piece of a streamed tool call. Index tells parallel calls apart: the
// first piece of a call carries its ID and Name, the following ones more Arguments text.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// ToolCalls assembles streamed tool-call pieces into calls, in the order their indexes first
// appeared. The zero value is ready to use; it is not safe for concurrent use.
type ToolCalls struct {
	calls []ToolCall
	index map[int]int // delta index → position in calls
}

// Add merges one piece.
func (a *ToolCalls) Add(d ToolCallDelta) {
	if a.index == nil {
		a.index = map[int]int{}
	}
	i, ok := a.index[d.Index]
	if !ok {
		i = len(a.calls)
		a.index[d.Index] = i
		a.calls = append(a.calls, ToolCall{})
	}
	c := &a.calls[i]
	if d.ID != "" {
		c.ID = d.ID
	}
	// Some servers repeat the name on every piece, others send it once.
	if d.Name != "" && !strings.HasSuffix(c.Name, d.Name) {
		c.Name += d.Name
	}
	c.Arguments += d.Arguments
}

// Calls returns the calls so far (shared with later Adds: copy before keeping them).
func (a *ToolCalls) Calls() []ToolCall { return a.calls }

// Len is the number of calls begun.
func (a *ToolCalls) Len() int { return len(a.calls) }
