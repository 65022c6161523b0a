package task

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// When queued messages leave the queue (core/task/msgqueue keeps them): at a step's end, into
// a question a message answers, or as the next run when a run ends. Those decisions look at
// the run and the open ask too, so they are taken under Task.mu (docs/task-runtime.md).

// Unqueue removes a queued message before it is sent. A message already sent (or unknown)
// answers ErrBadRequest.
func (t *Task) Unqueue(id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.queue.Remove(id) {
		t.publishStateLocked()
		return nil
	}
	return fmt.Errorf("%w: no queued message %q (it may have been sent already)", ErrBadRequest, id)
}

// takeQueued is called by the loop when a step has ended: the queued messages become the
// user's feedback in the next turn, each shown as its own row.
func (t *Task) takeQueued(ctx context.Context) []llm.Content {
	t.mu.Lock()
	j, ok := t.popQueueLocked()
	t.mu.Unlock()
	if !ok {
		return nil
	}
	for _, q := range j.Items {
		t.conv.Say(msg.SayUserFeedback, q.Text, nil, false)
	}
	c := []llm.Content{llm.Text(feedbackOpen + t.deps.Turns.ExpandUser(ctx, j.Text) + "\n</feedback>")}
	return append(c, imageContents(j.Images)...)
}
