package task

import (
	"context"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools"
)

// What a model reply looks like: in the chat as it streams (presenter) and in the history
// once it is settled (serialize).

// presenter turns the parser's blocks into UI messages: text blocks stream as deltas, partial
// tool calls are previewed by tools that can (the diff view fills in place).
type presenter struct {
	t *Task
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
				p.textIdx[i] = p.t.conv.Add(msg.Message{Type: msg.Say, Kind: msg.SayText, Text: content, Partial: true})
				p.sent[i] = len(content)
				continue
			}
			if len(content) > p.sent[i] {
				p.t.conv.Update(mi, func(m *msg.Message) { m.Text = content })
				p.sent[i] = len(content)
			}
		case parse.ToolUse:
			if !b.Partial || p.final {
				continue
			}
			tool, ok := p.t.deps.Registry.Get(b.Name)
			if !ok {
				continue
			}
			pv, ok := tool.(tools.Previewer)
			// A call that will be refused (PLAN mode) is never previewed: no diff view opens
			// and nothing is created on disk.
			if !ok || p.t.Mode() == ModePlan && !tool.Spec().PlanSafe {
				continue
			}
			if !tool.Spec().PlanSafe {
				p.t.cps.AwaitFirst(ctx) // a preview may create the file
			}
			p.preview(ctx, pv, tools.Call{Name: b.Name, Params: b.Params, Partial: true})
		}
	}
}

// preview shows a partial call. Its errors are not fatal (Run decides), and a panic only
// ends the preview.
func (p *presenter) preview(ctx context.Context, pv tools.Previewer, call tools.Call) {
	defer p.t.recoverBug("the preview of " + call.Name)
	if err := pv.Preview(ctx, p.t.env(), call); err != nil {
		p.t.deps.Logger.Debug("task: preview failed", "task", p.t.id, "tool", call.Name, "err", err)
	}
}
