package task

import (
	"context"
	"time"

	"github.com/cairnhq/cairn/core/msg"
)

// Visible backoff. Before a failed request is retried, the loop shows an error_retry row (the
// attempt and the delay; clients count down from the row's time) and waits. The user may cut the
// wait short by answering that row with approval, through the same Answer that answers asks:
// while the loop waits there is no open ask, so an approval naming the row (or naming none)
// ends the wait.

// backoff shows the retry row and waits delay, until the user asks to retry now, or until ctx
// ends (its error is returned then).
func (t *Task) backoff(ctx context.Context, r *msg.Retry, delay time.Duration) error {
	idx := t.conv.Say(msg.SayErrorRetry, "", r, false)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &retryWait{index: idx, cancel: cancel}
	t.mu.Lock()
	t.step.retrying = w
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if t.step.retrying == w {
			t.step.retrying = nil
		}
		t.mu.Unlock()
	}()
	_ = t.deps.Sleep(wctx, delay) // ended early either by the user (go on) or by ctx (below)
	return ctx.Err()
}

// retryNowLocked ends the backoff wait when index names its row (or index < 0) and the
// answer approves. t.mu is held.
func (t *Task) retryNowLocked(index int, approved bool) bool {
	w := t.step.retrying
	if w == nil || !approved || index >= 0 && index != w.index {
		return false
	}
	t.step.retrying = nil
	w.cancel()
	return true
}
