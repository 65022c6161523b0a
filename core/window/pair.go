package window

import (
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
)

// Pair returns msgs with every native tool call matched by a result, as providers require:
// the user message after an assistant message with ToolCalls carries one ContentToolResult
// per call, in the calls' order. A call without a result (the task stopped after it, or the
// next turn was built without one) gets a short note as its result; a result whose call is
// not in the assistant message just before it (a condense or a truncation moved it away from
// its call) becomes plain text. Histories without tool calls are returned as they are.
// Like Project, Pair never modifies msgs or their contents: changed messages are copies.
func Pair(msgs []llm.Message) []llm.Message {
	if !hasNative(msgs) {
		return msgs
	}
	out := make([]llm.Message, 0, len(msgs)+1)
	var open []llm.ToolCall // calls of the previous assistant message awaiting results
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleAssistant:
			if len(open) > 0 {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: results(open, nil)})
			}
			open = m.ToolCalls
			out = append(out, m)
		default:
			m.Content = results(open, m.Content)
			open = nil
			out = append(out, m)
		}
	}
	if len(open) > 0 {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: results(open, nil)})
	}
	return out
}

// results returns content with one result per call first, in call order, and every other
// result turned into text.
func results(calls []llm.ToolCall, content []llm.Content) []llm.Content {
	byID := map[string]llm.Content{}
	for _, c := range content {
		if c.Type == llm.ContentToolResult {
			if _, dup := byID[c.ToolCallID]; !dup {
				byID[c.ToolCallID] = c
			}
		}
	}
	out := make([]llm.Content, 0, len(calls)+len(content))
	used := map[string]bool{}
	for _, call := range calls {
		if used[call.ID] {
			continue
		}
		used[call.ID] = true
		if r, ok := byID[call.ID]; ok {
			out = append(out, r)
		} else {
			out = append(out, llm.ToolResult(call.ID, prompt.NoResult()))
		}
	}
	for _, c := range content {
		if c.Type != llm.ContentToolResult {
			out = append(out, c)
			continue
		}
		if used[c.ToolCallID] && byID[c.ToolCallID] == c {
			continue // placed above
		}
		out = append(out, llm.Text(c.Text))
	}
	return out
}

func hasNative(msgs []llm.Message) bool {
	for _, m := range msgs {
		if len(m.ToolCalls) > 0 {
			return true
		}
		for _, c := range m.Content {
			if c.Type == llm.ContentToolResult {
				return true
			}
		}
	}
	return false
}
