package task

import (
	"context"
	"errors"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task/subagent"
	"github.com/cairnhq/cairn/core/tools"
)

// asks is the questions a task has open: at most one ask waiting for an answer, and the
// goroutine of the resume question (run.go). Its fields are guarded by Task.mu
// (docs/task-runtime.md); the answer itself travels on the ask's channel, never sent with
// the lock held except into a channel just made (queue.go).
type asks struct {
	open   *pendingAsk
	resume *activity // the resume question being asked, nil when none
}

type pendingAsk struct {
	index int
	kind  msg.Kind
	ch    chan tools.Answer
	prev  Status // the status before the ask, restored by the answer
}

// take closes the open ask when match accepts it and returns it for its answer:
// ErrNoOpenAsk when none is open, ErrStaleAsk when match refuses it.
func (a *asks) take(match func(*pendingAsk) bool) (*pendingAsk, error) {
	pa := a.open
	switch {
	case pa == nil:
		return nil, ErrNoOpenAsk
	case !match(pa):
		return nil, ErrStaleAsk
	}
	a.open = nil
	return pa, nil
}

// openKind is the kind of the open ask, or "".
func (a *asks) openKind() msg.Kind {
	if a.open == nil {
		return ""
	}
	return a.open.kind
}

// index is the row of the open ask, or -1.
func (a *asks) index() int {
	if a.open == nil {
		return -1
	}
	return a.open.index
}

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
	pa := &pendingAsk{index: idx, kind: kind, ch: make(chan tools.Answer, 1), prev: t.status}
	t.asks.open = pa
	t.status = StatusWaiting
	t.publishStateLocked()
	return pa
}

// awaitAnswer waits for the answer to a posted ask, or ctx.
func (t *Task) awaitAnswer(ctx context.Context, pa *pendingAsk) (tools.Answer, error) {
	select {
	case ans := <-pa.ch:
		t.mu.Lock()
		t.leaveWaitingLocked(pa)
		t.publishStateLocked()
		t.mu.Unlock()
		return ans, nil
	case <-ctx.Done():
		t.mu.Lock()
		if t.asks.open == pa {
			// Withdrawn (the command it was about ended, or the step was cancelled): the task
			// is no longer waiting for anyone; a cancelled run sets its own status after.
			t.asks.open = nil
			t.leaveWaitingLocked(pa)
			t.publishStateLocked()
		}
		t.mu.Unlock()
		return tools.Answer{}, ctx.Err()
	}
}

// leaveWaitingLocked ends the waiting status an ask set: the task works on.
func (t *Task) leaveWaitingLocked(pa *pendingAsk) {
	if t.status != StatusWaiting {
		return
	}
	t.status = pa.prev
	if pa.prev == StatusWaiting || pa.prev == StatusIdle || pa.prev == StatusCancelled || pa.prev == StatusCompleted {
		t.status = StatusRunning
	}
}

// Answer answers the open ask. index < 0 answers whatever ask is open. With no ask open, an
// approval cuts a backoff wait short (backoff.go).
func (t *Task) Answer(index int, ans tools.Answer) error {
	t.mu.Lock()
	pa, err := t.asks.take(func(pa *pendingAsk) bool { return index < 0 || index == pa.index })
	if errors.Is(err, ErrNoOpenAsk) && t.retryNowLocked(index, ans.Approved) {
		err = nil
	}
	t.mu.Unlock()
	if pa != nil {
		pa.ch <- ans
	}
	return err
}

// AnswerKind answers the open ask only when it is of kind (ErrNoOpenAsk or ErrStaleAsk
// otherwise), checked and answered at once: an answer given outside the chat, such as Save in
// the editor's diff view, must not land on another question that opened in the meantime.
func (t *Task) AnswerKind(kind msg.Kind, ans tools.Answer) error {
	t.mu.Lock()
	pa, err := t.asks.take(func(pa *pendingAsk) bool { return pa.kind == kind })
	t.mu.Unlock()
	if pa != nil {
		pa.ch <- ans
	}
	return err
}

// OpenAsk returns the kind of the open ask, or "".
func (t *Task) OpenAsk() msg.Kind {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.asks.openKind()
}
