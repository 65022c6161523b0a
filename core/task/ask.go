package task

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/asks"
	"github.com/cairnhq/cairn/core/task/msgqueue"
	"github.com/cairnhq/cairn/core/task/subagent"
	"github.com/cairnhq/cairn/core/tools"
)

// Questions: core/task/asks owns the open one; the task sets its status around it. Posting an
// ask and answering it look at the status, the queue and the run as well, so they are taken
// under Task.mu, with the asks' own lock inside it (docs/task-runtime.md).

// pendingAsk is an ask waiting for its answer.
type pendingAsk = asks.Pending

// ask posts an ask and waits for the answer or ctx.
func (t *Task) ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload) (tools.Answer, error) {
	if t.sub != nil {
		return subagent.Answer(kind), ctx.Err()
	}
	t.mu.Lock()
	pa := t.postAskLocked(kind, text, payload)
	t.answerFromQueueLocked(pa)
	t.mu.Unlock()
	return t.awaitAnswer(ctx, pa)
}

// postAskLocked posts an ask and makes it the open one.
func (t *Task) postAskLocked(kind msg.Kind, text string, payload msg.Payload) *pendingAsk {
	idx := t.conv.Add(msg.Message{Type: msg.Ask, Kind: kind, Text: text, Payload: payload})
	pa := t.asks.Post(idx, kind, string(t.status))
	t.status = StatusWaiting
	t.publishStateLocked()
	return pa
}

// awaitAnswer waits for the answer to a posted ask, or ctx.
func (t *Task) awaitAnswer(ctx context.Context, pa *pendingAsk) (tools.Answer, error) {
	ans, err := pa.Wait(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	// Answered, or withdrawn (the command it was about ended, or the step was cancelled): the
	// task is no longer waiting for anyone; a cancelled run sets its own status after.
	if err == nil || t.asks.Withdraw(pa) {
		t.leaveWaitingLocked(pa)
		t.publishStateLocked()
	}
	return ans, err
}

// leaveWaitingLocked ends the waiting status an ask set: the task works on.
func (t *Task) leaveWaitingLocked(pa *pendingAsk) {
	if t.status != StatusWaiting {
		return
	}
	prev := Status(pa.Prev)
	t.status = prev
	if prev == StatusWaiting || prev == StatusIdle || prev == StatusCancelled || prev == StatusCompleted {
		t.status = StatusRunning
	}
}

// Answer answers the open ask. index < 0 answers whatever ask is open. With no ask open, an
// approval cuts a backoff wait short (backoff.go).
func (t *Task) Answer(index int, ans tools.Answer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.asks.Answer(func(pa *pendingAsk) bool { return index < 0 || index == pa.Index }, ans)
	if errors.Is(err, ErrNoOpenAsk) && t.retryNowLocked(index, ans.Approved) {
		err = nil
	}
	return err
}

// AnswerKind answers the open ask only when it is of kind (ErrNoOpenAsk or ErrStaleAsk
// otherwise), checked and answered at once: an answer given outside the chat, such as Save in
// the editor's diff view, must not land on another question that opened in the meantime.
func (t *Task) AnswerKind(kind msg.Kind, ans tools.Answer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.asks.Answer(func(pa *pendingAsk) bool { return pa.Kind == kind }, ans)
}

// OpenAsk returns the kind of the open ask, or "".
func (t *Task) OpenAsk() msg.Kind { return t.asks.Kind() }

// SetMode switches between PLAN and ACT (docs/tools.md, "PLAN mode").
func (t *Task) SetMode(mode string) error {
	if mode != ModeAct && mode != ModePlan {
		return fmt.Errorf("%w: mode %q", ErrBadRequest, mode)
	}
	var old string
	t.conv.SetMeta(func(m *store.Meta) { old, m.Mode = m.Mode, mode })
	t.mu.Lock()
	t.publishStateLocked()
	pa := t.asks.Open()
	if old == ModePlan && mode == ModeAct {
		t.todo.SwitchedToAct()
	}
	t.mu.Unlock()
	if old == ModePlan && mode == ModeAct && pa != nil && pa.Kind == msg.AskPlanModeRespond {
		_ = t.Answer(pa.Index, tools.Answer{Text: prompt.SwitchedToAct()})
	}
	return nil
}

// The queue meets the asks: a queued message may answer a question as it is posted.

// enqueueLocked appends a message to the queue and publishes the state; t.mu is held.
func (t *Task) enqueueLocked(text string, images []string) {
	t.queue.Push(text, images)
	t.publishStateLocked()
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
