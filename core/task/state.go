package task

import (
	"context"
	"time"
)

// The run state: what the task is running now, held under Task.mu (docs/task-runtime.md).

// activity is a goroutine the task started: a run of the loop or a resume question.
type activity struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned
}

// stepState is what the task is running now: the loop, the resume question, the wait before a
// retry, a restore in progress, and whether the task was closed. Its fields are guarded by
// Task.mu (docs/task-runtime.md).
type stepState struct {
	run       *activity  // the running loop, nil when idle
	resume    *activity  // the resume question being asked, nil when none
	retrying  *retryWait // the backoff wait before a retry, nil when none (backoff.go)
	restoring bool       // a checkpoint restore is in progress (restore.go)
	closed    bool       // Close was called: nothing new starts
}

// startable says why a run cannot start now (ErrClosed, ErrBusy), or nil.
func (s *stepState) startable() error {
	switch {
	case s.closed:
		return ErrClosed
	case s.run != nil || s.restoring:
		return ErrBusy
	}
	return nil
}

// quiet reports that nothing runs and nothing stops a new run from starting: not closed, no
// restore, no loop.
func (s *stepState) quiet() bool { return !s.closed && !s.restoring && s.run == nil }

// retryWait is a backoff wait in progress. cancel ends it early; the wait's context is not
// kept.
type retryWait struct {
	index  int // the error_retry row
	cancel context.CancelFunc
}

// cancelWait bounds how long Cancel and Close wait for the task's goroutines when the
// caller's ctx has no deadline: a tool that ignores its context must not hang the caller.
const cancelWait = 5 * time.Second

// ending is how a run of the loop ended (0: it goes on).
type ending int

const (
	endCompleted ending = iota + 1
	endCancelled
	endFailed
)

// stopWhy ends the sentence "as the task …" of the chat rows about the commands a run's end
// stopped.
func (e ending) stopWhy() string {
	return map[ending]string{endCompleted: "completed", endCancelled: "was cancelled", endFailed: "failed"}[e]
}
