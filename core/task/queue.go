package task

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// The message queue: text the user sends while a run is active and no question is open. It
// lives in the task (not the chat view), so it survives a closed sidebar and every client sees
// the same queue in the task's state. The queue is not saved: a daemon restart ends the run it
// waited for, and the user sees the queue gone.

// Queued is a message waiting for the current step to end.
type Queued struct {
	ID     string
	Text   string
	Images []string
}

// enqueueLocked appends a message to the queue and publishes the state; t.mu is held.
func (t *Task) enqueueLocked(text string, images []string) {
	t.queueSeq++
	t.queue = append(t.queue, Queued{ID: "q" + strconv.Itoa(t.queueSeq), Text: text, Images: images})
	t.publishStateLocked()
}

// Unqueue removes a queued message before it is sent. A message already sent (or unknown)
// answers ErrBadRequest.
func (t *Task) Unqueue(id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, q := range t.queue {
		if q.ID == id {
			t.queue = append(t.queue[:i:i], t.queue[i+1:]...)
			t.publishStateLocked()
			return nil
		}
	}
	return fmt.Errorf("%w: no queued message %q (it may have been sent already)", ErrBadRequest, id)
}

// popQueueLocked empties the queue and returns its messages as one: the texts joined by a
// blank line, the images together. t.mu is held.
func (t *Task) popQueueLocked() (tools.Answer, bool) {
	if len(t.queue) == 0 {
		return tools.Answer{}, false
	}
	texts := make([]string, 0, len(t.queue))
	var images []string
	for _, q := range t.queue {
		if q.Text != "" {
			texts = append(texts, q.Text)
		}
		images = append(images, q.Images...)
	}
	t.queue = nil
	t.publishStateLocked()
	return tools.Answer{Text: strings.Join(texts, "\n\n"), Images: images}, true
}

// takeQueued is called by the loop when a step has ended: the queued messages become the
// user's feedback in the next turn, each shown as its own row.
func (t *Task) takeQueued(ctx context.Context) []llm.Content {
	t.mu.Lock()
	queue := t.queue
	ans, ok := t.popQueueLocked()
	t.mu.Unlock()
	if !ok {
		return nil
	}
	for _, q := range queue {
		t.say(msg.SayUserFeedback, q.Text, nil, false)
	}
	c := []llm.Content{llm.Text(feedbackOpen + t.expand(ctx, ans.Text) + "\n</feedback>")}
	return append(c, imageContents(ans.Images)...)
}

// answerFromQueueLocked answers a question that a message answers (a follow-up question, a
// PLAN mode reply, a completion) with the queued messages, as if the user had typed them into
// it. Approvals are never answered from the queue: a queued message does not reject a tool.
// t.mu is held and pa is the open ask.
func (t *Task) answerFromQueueLocked(pa *pendingAsk) {
	switch pa.kind {
	case msg.AskFollowup, msg.AskPlanModeRespond, msg.AskCompletionResult:
	default:
		return
	}
	ans, ok := t.popQueueLocked()
	if !ok {
		return
	}
	t.openAsk = nil
	pa.ch <- ans // buffered: the ask was just posted, nothing else answered it
}

// sendQueuedLocked starts the next run with the queued messages when a run has ended: after
// an interruption it resumes the task with them, otherwise they are feedback. It reports
// whether a run started. t.mu is held and t.run is nil.
func (t *Task) sendQueuedLocked(cancelled bool) bool {
	if t.closed || t.restoring || t.run != nil || t.openAsk != nil || len(t.queue) == 0 {
		return false
	}
	ans, _ := t.popQueueLocked()
	var err error
	if cancelled {
		err = t.resumeLocked(ans, t.meta.Completed, t.deps.Now().Sub(t.meta.Updated))
	} else {
		err = t.feedbackLocked(ans.Text, ans.Images)
	}
	if err != nil {
		// Nothing else can start while t.mu is held, so this is a bug; keep the messages.
		t.logger().Error("bug: queued messages not sent", "task", t.id, "err", err)
		t.enqueueLocked(ans.Text, ans.Images)
		return false
	}
	return true
}

// queuedLocked copies the queue for the task's state; t.mu is held.
func (t *Task) queuedLocked() []Queued {
	if len(t.queue) == 0 {
		return nil
	}
	return append([]Queued(nil), t.queue...)
}
