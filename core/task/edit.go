package task

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/core/msg"
)

// EditTarget is what editing a past user message goes back to.
type EditTarget struct {
	// Checkpoint is the index of the checkpoint row restored before the edited text is sent.
	Checkpoint int
	// Hash is that checkpoint's commit.
	Hash string
}

// editTarget returns the checkpoint that editing the user message at index of ms restores: the
// last checkpoint row before it, or, for the task's first message, the checkpoint taken before
// the first request. A message with no such checkpoint cannot be edited (ErrBadRequest).
func editTarget(ms []msg.Message, index int) (EditTarget, error) {
	if index < 0 || index >= len(ms) {
		return EditTarget{}, fmt.Errorf("%w: message %d does not exist", ErrBadRequest, index)
	}
	if m := ms[index]; m.Type != msg.Say || (m.Kind != msg.SayTask && m.Kind != msg.SayUserFeedback) {
		return EditTarget{}, fmt.Errorf("%w: message %d is not the user's", ErrBadRequest, index)
	}
	for i := index - 1; i >= 0; i-- {
		if cp, ok := checkpointOf(ms[i]); ok {
			return EditTarget{Checkpoint: i, Hash: cp.Hash}, nil
		}
	}
	// The first message: its checkpoint follows it, before any other user row.
	for i := index + 1; i < len(ms); i++ {
		m := ms[i]
		if cp, ok := checkpointOf(m); ok {
			return EditTarget{Checkpoint: i, Hash: cp.Hash}, nil
		}
		if m.Type == msg.Say && m.Kind == msg.SayUserFeedback {
			break
		}
	}
	return EditTarget{}, fmt.Errorf("%w: no checkpoint before message %d to go back to", ErrBadRequest, index)
}

// checkpointOf returns the checkpoint of a checkpoint_created row.
func checkpointOf(m msg.Message) (msg.Checkpoint, bool) {
	cp, ok := m.Payload.(*msg.Checkpoint)
	if m.Type != msg.Say || m.Kind != msg.SayCheckpointCreated || !ok || cp.Hash == "" || cp.APIIndex <= 0 {
		return msg.Checkpoint{}, false
	}
	return *cp, true
}

// EditMessage replaces the user message at index with new text: it restores the files (when
// files is not nil) and the conversation to the checkpoint editTarget names, which cuts the
// message and everything after it, then sends text as the user's message. The restore follows
// Restore's rules (a running task is cancelled first; nothing starts while it runs); the text
// then answers the resume question the restore asked.
func (t *Task) EditMessage(ctx context.Context, index int, text string, images []string, files FilesRestorer) error {
	target, err := editTarget(t.conv.Messages(), index)
	if err != nil {
		return err
	}
	kind := RestoreTask
	if files != nil {
		kind = RestoreBoth
	}
	if err := t.Restore(ctx, target.Checkpoint, kind, files); err != nil {
		return err
	}
	if _, err := t.Continue(text, images); err != nil {
		return fmt.Errorf("task: send the edited message: %w", err)
	}
	return nil
}
