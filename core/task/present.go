package task

import (
	"context"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/task/toolcall"
)

// What a model reply looks like: in the chat as it streams (presenter) and in the history
// once it is settled (serialize).

// presenter turns the parser's blocks into UI messages: text blocks stream as deltas, partial
// tool calls are previewed by tools that can (toolcall.Preview: the diff view fills in place).
type presenter struct {
	l *runLoop
	// final is set once the stream ended: text is settled, and no tool call is previewed
	// any more (a complete call runs; an unfinished one never does).
	final   bool
	textIdx map[int]int // block index → message index
	sent    map[int]int // block index → bytes shown
}

func (p *presenter) show(ctx context.Context, blocks []parse.Block) {
	if p.textIdx == nil {
		p.textIdx, p.sent = map[int]int{}, map[int]int{}
	}
	for i, b := range blocks {
		switch b.Type {
		case parse.Text:
			content := b.Content
			mi, ok := p.textIdx[i]
			if !ok {
				if content == "" {
					continue
				}
				p.textIdx[i] = p.l.conv.Add(msg.Message{Type: msg.Say, Kind: msg.SayText, Text: content, Partial: true})
				p.sent[i] = len(content)
				continue
			}
			if len(content) > p.sent[i] {
				p.l.conv.Update(mi, func(m *msg.Message) { m.Text = content })
				p.sent[i] = len(content)
			}
		case parse.ToolUse:
			if !b.Partial || p.final {
				continue
			}
			if err := toolcall.Preview(ctx, p.l.toolDeps(), b); err != nil {
				p.l.deps.Logger.Debug("task: preview failed", "task", p.l.id, "tool", b.Name, "err", err)
			}
		}
	}
}
