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

// msgQueue is the queue itself, guarded by Task.mu (docs/task-runtime.md).
type msgQueue struct {
	items []Queued
	seq   int // the last queued message's number, for its id
}

// push appends a message with a new id.
func (q *msgQueue) push(text string, images []string) {
	q.seq++
	q.items = append(q.items, Queued{ID: "q" + strconv.Itoa(q.seq), Text: text, Images: images})
}

// remove drops the message with id and reports whether it was there.
func (q *msgQueue) remove(id string) bool {
	for i, m := range q.items {
		if m.ID == id {
			q.items = append(q.items[:i:i], q.items[i+1:]...)
			return true
		}
	}
	return false
}

// pop empties the queue and returns its messages as one: the texts joined by a blank line,
// the images together; false when it was empty.
func (q *msgQueue) pop() (tools.Answer, bool) {
	if len(q.items) == 0 {
		return tools.Answer{}, false
	}
	texts := make([]string, 0, len(q.items))
	var images []string
	for _, m := range q.items {
		if m.Text != "" {
			texts = append(texts, m.Text)
		}
		images = append(images, m.Images...)
	}
	q.items = nil
	return tools.Answer{Text: strings.Join(texts, "\n\n"), Images: images}, true
}

// list copies the queue (nil when empty).
func (q *msgQueue) list() []Queued {
	if len(q.items) == 0 {
		return nil
	}
	return append([]Queued(nil), q.items...)
}

// enqueueLocked appends a message to the queue and publishes the state; t.mu is held.
func (t *Task) enqueueLocked(text string, images []string) {
	t.queue.push(text, images)
	t.publishStateLocked()
}

// Unqueue removes a queued message before it is sent. A message already sent (or unknown)
// answers ErrBadRequest.
func (t *Task) Unqueue(id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.queue.remove(id) {
		t.publishStateLocked()
		return nil
	}
	return fmt.Errorf("%w: no queued message %q (it may have been sent already)", ErrBadRequest, id)
}

// popQueueLocked empties the queue and returns its messages as one: the texts joined by a
// blank line, the images together. t.mu is held.
func (t *Task) popQueueLocked() (tools.Answer, bool) {
	ans, ok := t.queue.pop()
	if ok {
		t.publishStateLocked()
	}
	return ans, ok
}

// takeQueued is called by the loop when a step has ended: the queued messages become the
// user's feedback in the next turn, each shown as its own row.
func (t *Task) takeQueued(ctx context.Context) []llm.Content {
	t.mu.Lock()
	queue := t.queue.items
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
	t.asks.open = nil
	pa.ch <- ans // buffered: the ask was just posted, nothing else answered it
}

// sendQueuedLocked starts the next run with the queued messages when a run has ended: after
// an interruption it resumes the task with them, otherwise they are feedback. It reports
// whether a run started. t.mu is held and t.step.run is nil.
func (t *Task) sendQueuedLocked(cancelled bool) bool {
	if !t.step.quiet() || t.asks.open != nil || len(t.queue.items) == 0 {
		return false
	}
	ans, _ := t.popQueueLocked()
	var err error
	if cancelled {
		err = t.resumeLocked(ans, t.conv.meta.Completed, t.deps.Now().Sub(t.conv.meta.Updated))
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
