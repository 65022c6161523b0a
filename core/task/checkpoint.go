package task

import (
	"context"

	"github.com/cairnhq/cairn/core/msg"
)

// checkpoint asks Deps.Checkpoint for a snapshot and shows the outcome: a checkpoint_created
// row with the hash, or an error row the UI can show as a banner.
func (t *Task) checkpoint(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	hash, err := t.deps.Turns.Checkpoint(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		t.say(msg.SayError, err.Error(), nil, false)
	case err == nil && hash != "":
		// The next user message (first request, or the tool's result) belongs to the row.
		t.mu.Lock()
		apiIndex := len(t.api) + 1
		t.mu.Unlock()
		t.say(msg.SayCheckpointCreated, "", &msg.Checkpoint{Hash: hash, APIIndex: apiIndex}, false)
	}
}
