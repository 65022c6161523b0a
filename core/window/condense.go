package window

import (
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/tools/interact"
)

// Condense returns the conversation as sent after the user accepted a summary (condense;
// docs/architecture.md, "Condensing"): the first user message (the task), the summary, and the
// messages from index at on. at is the index of the user message that carries the condense tool's
// result; it becomes part of the first message so that user and assistant still alternate (and the
// truncation head of Project still applies). Like Project, it is a projection: history and the
// contents it refers to are never modified, unchanged messages are shared.
//
// The history is returned as is when at does not point at a user message that follows an
// assistant condense call (no condensing yet, or the history was cut back before it).
func Condense(history []llm.Message, at int, summary string) []llm.Message {
	if !Condensable(history, at) {
		return history
	}
	first := history[0]
	content := make([]llm.Content, 0, len(first.Content)+1+len(history[at].Content))
	content = append(content, first.Content...)
	content = append(content, llm.Text(note("condensed", strings.TrimSpace(summary))))
	content = append(content, history[at].Content...)
	out := make([]llm.Message, 0, len(history)-at)
	out = append(out, llm.Message{Role: llm.RoleUser, Content: content})
	return append(out, history[at+1:]...)
}

// Condensable reports whether at is a valid condensing point of history: a user message after
// index 1 whose preceding assistant message called the condense tool.
func Condensable(history []llm.Message, at int) bool {
	if at < 2 || at >= len(history) || history[0].Role != llm.RoleUser ||
		history[at].Role != llm.RoleUser || history[at-1].Role != llm.RoleAssistant {
		return false
	}
	for _, c := range history[at-1].Content {
		if strings.Contains(c.Text, "<condense>") {
			return true
		}
	}
	for _, call := range history[at-1].ToolCalls {
		if call.Name == interact.CondenseName {
			return true
		}
	}
	return false
}
