package tools

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/cairnhq/cairn/core/msg"
)

// SubagentsRow is the chat row of a call that runs subagents or a subtask (use_subagents,
// delegate): its text is a msg.Subagents value as JSON, replaced in place as they move on.
type SubagentsRow struct {
	ui UI

	// mu guards last and serialises the updates.
	mu   sync.Mutex
	last string
}

// NewSubagentsRow returns the row of one call, shown through ui.
func NewSubagentsRow(ui UI) *SubagentsRow { return &SubagentsRow{ui: ui} }

// Show replaces the row with children's state; a partial update equal to the last is not sent.
func (r *SubagentsRow) Show(ctx context.Context, children []msg.Subagent, partial bool) {
	b, err := json.Marshal(msg.Subagents{Children: children})
	if err != nil {
		return // plain data always encodes
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if string(b) == r.last && partial {
		return
	}
	r.last = string(b)
	r.ui.Say(ctx, msg.SaySubagents, r.last, nil, partial)
}

// Finish marks the row complete with the last state shown.
func (r *SubagentsRow) Finish(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ui.Say(ctx, msg.SaySubagents, r.last, nil, false)
}
