package openai

import (
	"encoding/json"
	"strconv"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/cairnhq/cairn/core/llm"
)

// Native tool calling and reasoning options on the OpenAI wire format.
//
// In llm's history a user message carries the results of the tool calls of the assistant
// message before it; on the wire each result is its own role "tool" message, placed right
// after the assistant message, and whatever else the user turn holds (environment details,
// images, feedback) follows as a user message.

// applyOptions sets the request's tools and reasoning effort.
func applyOptions(creq *goopenai.ChatCompletionRequest, req llm.Request) {
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		creq.Tools = append(creq.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	// parallel_tool_calls is not sent: some reasoning models reject it. Calls after the first
	// are answered as not run (core/task).
	if req.ReasoningEffort != "" {
		creq.ReasoningEffort = req.ReasoningEffort
	}
}

// splitToolResults returns the role "tool" messages for m's tool results and m without them.
func splitToolResults(m llm.Message) ([]goopenai.ChatCompletionMessage, llm.Message) {
	if m.Role != llm.RoleUser {
		return nil, m
	}
	var tool []goopenai.ChatCompletionMessage
	rest := make([]llm.Content, 0, len(m.Content))
	for _, c := range m.Content {
		if c.Type != llm.ContentToolResult {
			rest = append(rest, c)
			continue
		}
		tool = append(tool, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool,
			ToolCallID: c.ToolCallID, Content: c.Text})
	}
	if tool == nil {
		return nil, m
	}
	m.Content = rest
	return tool, m
}

// wireToolCalls converts an assistant message's calls. Arguments that are not a JSON object
// (a call recorded from a broken stream) are sent as an empty object: providers reject
// invalid JSON in the history.
func wireToolCalls(calls []llm.ToolCall) []goopenai.ToolCall {
	out := make([]goopenai.ToolCall, 0, len(calls))
	for _, c := range calls {
		args := c.Arguments
		if !json.Valid([]byte(args)) {
			args = "{}"
		}
		out = append(out, goopenai.ToolCall{ID: c.ID, Type: goopenai.ToolTypeFunction,
			Function: goopenai.FunctionCall{Name: c.Name, Arguments: args}})
	}
	return out
}

// wireCallDelta is one element of a streamed delta.tool_calls.
type wireCallDelta struct {
	// Index is absent from some servers' events (Gemini's compatible endpoint): the position
	// in the array stands in for it.
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// callIndexes maps the provider's call indexes to stable ones. A server that numbers every
// call 0 but gives each a new id still yields separate calls.
type callIndexes struct {
	ids  map[int]string // provider index → id of the call it stands for now
	keys map[string]int // provider index and id → our index
	next int
}

func (ci *callIndexes) deltas(ds []wireCallDelta) []llm.ToolCallDelta {
	if ci.ids == nil {
		ci.ids, ci.keys = map[int]string{}, map[string]int{}
	}
	out := make([]llm.ToolCallDelta, 0, len(ds))
	for pos, d := range ds {
		idx := pos
		if d.Index != nil {
			idx = *d.Index
		}
		if d.ID != "" && ci.ids[idx] != d.ID {
			ci.ids[idx] = d.ID
		}
		key := strconv.Itoa(idx) + "\x00" + ci.ids[idx]
		ours, ok := ci.keys[key]
		if !ok {
			ours = ci.next
			ci.next++
			ci.keys[key] = ours
		}
		out = append(out, llm.ToolCallDelta{Index: ours, ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments})
	}
	return out
}
