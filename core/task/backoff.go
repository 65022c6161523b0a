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
// ends the wait (retrySlot.now, state.go).

// backoff shows the retry row and waits delay, until the user asks to retry now, or until ctx
// ends (its error is returned then).
func (l *runLoop) backoff(ctx context.Context, r *msg.Retry, delay time.Duration) error {
	idx := l.conv.Say(msg.SayErrorRetry, "", r, false)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer l.retry.hold(&retryWait{index: idx, cancel: cancel})()
	_ = l.deps.Sleep(wctx, delay) // ended early either by the user (go on) or by ctx (below)
	return ctx.Err()
}
