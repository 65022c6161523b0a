package task

import (
	"context"

	"github.com/cairnhq/cairn/core/msg"
)

// The first checkpoint of a run snapshots the workspace as the model first sees it. On a large
// workspace that takes seconds, and nothing needs it until something may change a file, so it
// runs in the background (an activity started through goLocked, run.go) while the first request
// goes out. The loop waits for it (awaitFirstCheckpoint) before a tool that may change files
// runs or previews, and when the run ends, so it never outlives the run that started it.

// checkpoint asks Deps.Checkpoint for a snapshot and shows the outcome: a checkpoint_created
// row with the hash, or an error row the UI can show as a banner.
func (t *Task) checkpoint(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	// The next user message (first request, or the tool's result) belongs to the row.
	t.commitCheckpoint(ctx, len(t.conv.History())+1)
}

// commitCheckpoint takes the snapshot and posts its row; apiIndex is the API message the row
// restores to.
func (t *Task) commitCheckpoint(ctx context.Context, apiIndex int) {
	hash, err := t.deps.Turns.Checkpoint(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		t.conv.Say(msg.SayError, err.Error(), nil, false)
	case err == nil && hash != "":
		t.conv.Say(msg.SayCheckpointCreated, "", &msg.Checkpoint{Hash: hash, APIIndex: apiIndex}, false)
	}
}

// startFirstCheckpoint starts the run's first checkpoint in the background; its row restores to
// the request about to be appended.
func (t *Task) startFirstCheckpoint(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.step.closed || t.step.firstCP != nil {
		return
	}
	apiIndex := len(t.conv.History()) + 1
	t.step.firstCP = t.goLocked("the first checkpoint", func(cctx context.Context) {
		t.commitCheckpoint(cctx, apiIndex)
	})
}

// awaitFirstCheckpoint waits until the run's first checkpoint is complete. When ctx ends first
// (the run was cancelled) the checkpoint is cancelled too and waited for, bounded by cancelWait.
func (t *Task) awaitFirstCheckpoint(ctx context.Context) {
	t.mu.Lock()
	a := t.step.firstCP
	t.mu.Unlock()
	if a == nil {
		return
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		a.cancel()
		if err := waitDone(context.WithoutCancel(ctx), a.done); err != nil {
			t.logger().Error("task: the first checkpoint did not stop", "task", t.id, "err", err)
		}
	}
	t.mu.Lock()
	if t.step.firstCP == a {
		t.step.firstCP = nil
	}
	t.mu.Unlock()
}
