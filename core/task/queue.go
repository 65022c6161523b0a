package task

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task/msgqueue"
	"github.com/cairnhq/cairn/core/tools"
)

// When queued messages leave the queue (core/task/msgqueue keeps them): at a step's end, into
// a question a message answers, or as the next run when a run ends. Those decisions look at
// the run and the open ask too, so they are taken under Task.mu (docs/task-runtime.md).

// enqueueLocked appends a message to the queue and publishes the state; t.mu is held.
func (t *Task) enqueueLocked(text string, images []string) {
	t.queue.Push(text, images)
	t.publishStateLocked()
}

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

// popQueueLocked empties the queue and returns its messages as one: the texts joined by a
// blank line, the images together. t.mu is held.
func (t *Task) popQueueLocked() (msgqueue.Joined, bool) {
	j, ok := t.queue.Pop()
	if ok {
		t.publishStateLocked()
	}
	return j, ok
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

// answerFromQueueLocked answers a question that a message answers (a follow-up question, a
// PLAN mode reply, a completion) with the queued messages, as if the user had typed them into
// it. Approvals are never answered from the queue: a queued message does not reject a tool.
// t.mu is held and pa is the open ask.
func (t *Task) answerFromQueueLocked(pa *pendingAsk) {
	switch pa.Kind {
	case msg.AskFollowup, msg.AskPlanModeRespond, msg.AskCompletionResult:
	default:
		return
	}
	if t.asks.Open() != pa {
		return
	}
	j, ok := t.popQueueLocked()
	if !ok {
		return
	}
	// The ask was just posted under this hold of t.mu, which every answer takes: it is open.
	if !t.asks.AnswerPosted(pa, tools.Answer{Text: j.Text, Images: j.Images}) {
		t.deps.Logger.Error("bug: a queued message found its question answered; it stays queued", "task", t.id)
		t.enqueueLocked(j.Text, j.Images)
	}
}

// sendQueuedLocked starts the next run with the queued messages when a run has ended: after
// an interruption it resumes the task with them, otherwise they are feedback. It reports
// whether a run started. t.mu is held and t.step.run is nil.
func (t *Task) sendQueuedLocked(cancelled bool) bool {
	if !t.step.quiet() || t.asks.Open() != nil || t.queue.Len() == 0 {
		return false
	}
	j, _ := t.popQueueLocked()
	ans := tools.Answer{Text: j.Text, Images: j.Images}
	var err error
	if cancelled {
		meta := t.conv.Meta()
		err = t.resumeLocked(ans, meta.Completed, t.deps.Now().Sub(meta.Updated))
	} else {
		err = t.feedbackLocked(ans.Text, ans.Images)
	}
	if err != nil {
		// Nothing else can start while t.mu is held, so this is a bug; keep the messages.
		t.deps.Logger.Error("bug: queued messages not sent", "task", t.id, "err", err)
		t.enqueueLocked(ans.Text, ans.Images)
		return false
	}
	return true
}
