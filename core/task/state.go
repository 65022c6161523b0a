package task

import (
	"context"
	"sync"

	"github.com/cairnhq/cairn/core/task/runstate"
	"github.com/cairnhq/cairn/core/task/toolcall"
)

// A run's backoff wait and how a run ends. What the task runs now and its status are
// core/task/runstate's.

// retrySlot holds the backoff wait in progress before a failed request is retried (backoff.go),
// which an approval answering its row cuts short. It has its own lock, a leaf: nothing is
// called while it is held.
type retrySlot struct {
	// mu guards w.
	mu sync.Mutex
	w  *retryWait // nil when no wait is in progress
}

// retryWait is a backoff wait in progress. cancel ends it early; the wait's context is not
// kept.
type retryWait struct {
	index  int // the error_retry row
	cancel context.CancelFunc
}

// hold makes w the wait in progress until the returned func lets it go.
func (s *retrySlot) hold(w *retryWait) (release func()) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.w == w {
			s.w = nil
		}
		s.mu.Unlock()
	}
}

// now ends the wait in progress when index names its row (or index < 0) and the answer
// approves; it reports whether it did.
func (s *retrySlot) now(index int, approved bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.w
	if w == nil || !approved || index >= 0 && index != w.index {
		return false
	}
	s.w = nil
	w.cancel()
	return true
}

// cancelWait bounds how long Cancel and Close wait for the task's goroutines when the
// caller's ctx has no deadline (core/task/runstate).
const cancelWait = runstate.CancelWait

// ending is how a run of the loop ended (0: it goes on); a tool call may end it
// (core/task/toolcall).
type ending = toolcall.End

const (
	endCompleted = toolcall.Completed
	endCancelled = toolcall.Cancelled
	endFailed    = toolcall.Failed
)
