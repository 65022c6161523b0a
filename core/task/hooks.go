package task

import (
	"context"
	"strconv"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/task/hookpoints"
	"github.com/cairnhq/cairn/core/window"
)

// Hook points: core/task/hookpoints fires them and keeps what they add; the task says when,
// with what it knows.

// Hooks runs the user's hooks for one event (core/hooks.Runner implements it). Fire is called
// on the task's goroutine and never with a task lock held; it returns when the event's hooks
// are done, never fails (a broken hook is a note in the result), and cancelling ctx stops a
// hook that is running.
type Hooks = hookpoints.Runner

// resumeHook fires TaskResume with what the task was before it was resumed.
func (t *Task) resumeHook(ctx context.Context) {
	ms := t.conv.Messages()
	prev := hooks.PreviousState{MessageCount: strconv.Itoa(len(ms)), ConversationHistoryDeleted: "false"}
	if n := len(ms); n > 0 {
		prev.LastMessageTs = strconv.FormatInt(ms[n-1].Time.UnixMilli(), 10)
	}
	t.hooks.Fire(ctx, hooks.TaskResume, hooks.ResumeData{TaskMetadata: t.hooks.Meta(), PreviousState: prev})
}

// truncationHook fires PreCompact before a request whose history the projection is about to
// truncate: the last request used more of the window than a request may.
func (t *Task) truncationHook(ctx context.Context) {
	if !t.hooks.On() {
		return
	}
	meta := t.conv.Meta()
	tokens, n, mode := meta.ContextTokens, len(t.conv.History()), meta.Mode
	if tokens <= 0 || tokens < int64(window.MaxAllowed(t.cfg.For(mode == ModePlan).Info.ContextWindow)) {
		return
	}
	t.hooks.Compact(ctx, hooks.CompactTruncate, tokens, n)
}
