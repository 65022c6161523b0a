package task

import (
	"github.com/cairnhq/cairn/core/task/hookpoints"
)

// Hook points: core/task/hookpoints fires them and keeps what they add; the task says when,
// with what it knows.

// Hooks runs the user's hooks for one event (core/hooks.Runner implements it). Fire is called
// on the task's goroutine and never with a task lock held; it returns when the event's hooks
// are done, never fails (a broken hook is a note in the result), and cancelling ctx stops a
// hook that is running.
type Hooks = hookpoints.Runner
