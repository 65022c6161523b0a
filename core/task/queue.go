package task

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// When queued messages leave the queue (core/task/msgqueue keeps them): at a step's end, into
// a question a message answers (ask.go), or as the next run when a run ends (run.go). The
// last two look at the run and the open ask too, so they are decisions of the run state
// (core/task/runstate; docs/task-runtime.md).

// Unqueue removes a queued message before it is sent. A message already sent (or unknown)
// answers ErrBadRequest.
func (t *Task) Unqueue(id string) error {
	if t.queue.Remove(id) {
		t.state.Publish()
		return nil
	}
	return fmt.Errorf("%w: no queued message %q (it may have been sent already)", ErrBadRequest, id)
}

// queuedTurn is called by the loop when a step has ended: the queued messages become the
// user's feedback in the next turn, each shown as its own row.
func (l *runLoop) queuedTurn(ctx context.Context) []llm.Content {
	j, ok := l.task.takeQueued()
	if !ok {
		return nil
	}
	for _, q := range j.Items {
		l.conv.Say(msg.SayUserFeedback, q.Text, nil, false)
	}
	c := []llm.Content{llm.Text(feedbackOpen + l.deps.Turns.ExpandUser(ctx, j.Text) + "\n</feedback>")}
	return append(c, imageContents(j.Images)...)
}
