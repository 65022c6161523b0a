package task

import (
	"context"
	"errors"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/runstate"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
)

// The runtime of a task. Concurrency rules:
//
//   - A task's goroutines are started by core/task/runstate: a run of the loop (at most one)
//     and a resume question (at most one); the run's first checkpoint runs on a goroutine of
//     core/task/checkpoints, which the run waits for before it ends. Each has its own context,
//     made there and never stored.
//   - runstate.Owner.Start is the one decision of busy or not: it refuses while a run is
//     active, a restore is in progress or the task is closed, and installs the run before it
//     lets go of its lock.
//   - A message sent while a run is active waits in the queue (queue.go). The run takes it at
//     the end of its current step; a run that ends with messages still queued starts the next
//     run with them in the same decision that clears the run, so no other start slips between.
//   - Close marks the task closed (nothing new starts), cancels what runs and waits for every
//     goroutine it started before it closes the log.
//   - A panic on a task goroutine is recovered there: the daemon and the other tasks go on;
//     the stack goes to the daemon log and the chat shows a short error.

// runOf is the run that opens with o: the opening, the loop, and what a run's end does
// before the run state decides what follows (runstate.Run).
func runOf(p *parts, o opening) runstate.Run {
	return func(ctx context.Context) (status Status) {
		end := endFailed
		rec := recorderOf(p.deps)
		ctx = rec.RunStarted(ctx, telemetry.Run{TaskID: p.id, Mode: p.conv.Meta().Mode, Sub: p.sub != nil})
		defer func() {
			rec.RunEnded(ctx, runStatus(end))
			p.conv.FinishPartials()
			if end == endCompleted {
				p.conv.SetMeta(func(m *store.Meta) { m.Completed = true })
			}
			status = endStatus(end)
		}()
		defer func() {
			if r := recover(); r != nil {
				end = endFailed
				p.bugs.report("the task loop", r)
			}
		}()
		defer p.cps.AwaitFirst(ctx)
		if o.prepare != nil {
			o.prepare()
		}
		end = (&runLoop{parts: p}).loop(ctx, o.first(ctx), o.firstTurn)
		p.bg.StopAll(ctx, end.StopWhy())
		switch end {
		case endCompleted:
			p.hooks.Completed(ctx)
		case endCancelled:
			p.hooks.Cancelled(ctx)
		}
		return endStatus(end)
	}
}

// endStatus is the task's status once a run ended with end.
func endStatus(end ending) Status {
	return map[ending]Status{endCompleted: StatusCompleted, endCancelled: StatusCancelled, endFailed: StatusFailed}[end]
}

// Resume posts the resume question (resume_task, or resume_completed_task) for the run state
// (runstate.Task); a subagent never asks it.
func (o others) Resume() (runstate.Question, func(tools.Answer) runstate.Run, bool) {
	p := o.p
	if p.sub != nil {
		return nil, nil, false
	}
	meta := p.conv.Meta()
	completed := meta.Completed
	elapsed := p.deps.Now().Sub(meta.Updated)
	kind := msg.AskResumeTask
	if completed {
		kind = msg.AskResumeCompletedTask
	}
	q := o.Post(kind, "", nil, nil)
	return q, func(ans tools.Answer) runstate.Run {
		return runOf(p, resumeOpening(p, ans, completed, elapsed))
	}, true
}

// Queued takes the queued messages as the next run (runstate.Task): after an interruption
// they resume the task, otherwise they are feedback.
func (o others) Queued(cancelled bool) (runstate.Run, bool) {
	p := o.p
	j, ok := p.queue.Pop()
	if !ok {
		return nil, false
	}
	op := feedbackOpening(p, j.Text, j.Images)
	if cancelled {
		meta := p.conv.Meta()
		op = resumeOpening(p, tools.Answer{Text: j.Text, Images: j.Images}, meta.Completed, p.deps.Now().Sub(meta.Updated))
	}
	return runOf(p, op), true
}

// NotResumed logs a resume answer whose run could not start (runstate.Task).
func (o others) NotResumed(err error) {
	o.p.deps.Logger.Info("task: resume not started", "task", o.p.id, "err", err)
}

// Cancel stops the running request and tools and waits, until ctx's deadline (cancelWait when
// it has none), for the loop to stop; the task then asks to be resumed. It returns ErrBusy
// when the loop did not stop in time.
func (t *Task) Cancel(ctx context.Context) error { return t.state.Cancel(ctx) }

// Done returns a channel closed when the current run ends (nil when idle).
func (t *Task) Done() <-chan struct{} { return t.state.Done() }

// Close stops the task: nothing new starts, the run and the resume question are cancelled,
// and Close waits (until ctx's deadline, cancelWait when it has none) for every goroutine the
// task started before it closes the log and ends its subscriptions. A goroutine stuck past ctx
// is reported in the log; its later writes fail harmlessly.
func (t *Task) Close(ctx context.Context) {
	first, err := t.state.Close(ctx)
	if !first {
		return
	}
	if err != nil {
		t.deps.Logger.Error("task: closing without waiting for a stuck goroutine", "task", t.id, "err", err)
	}
	if err := t.cps.Close(ctx); err != nil {
		t.deps.Logger.Error("task: closing without waiting for a stuck goroutine", "task", t.id, "err", err)
	}
	unsaved, err := t.conv.Close()
	if unsaved != nil {
		t.deps.Logger.Error("task: closed with records it could not save", "task", t.id, "err", unsaved)
	}
	if err != nil {
		t.deps.Logger.Error("task: closing the log", "task", t.id, "err", err)
	}
	if err := t.deps.Turns.Close(); err != nil {
		t.deps.Logger.Warn("task: releasing its resources", "task", t.id, "err", err)
	}
	// Subscribers still open take what was published, then end: none of them keeps the
	// closed task (its messages) alive for as long as its client stays connected.
	t.broker.Close()
}

// Start runs the first turn of a new task with the user's text, images and attached files.
func (t *Task) Start(text string, images, files []string) error {
	return t.state.Start(runOf(t.parts, startOpening(t.parts, text, images, files)))
}

// Continue sends new user text to the task: it answers the open question, or restarts the
// loop with the text as feedback when the task is not running (after completion, failure or
// cancel). While a run is active without a question the text is queued (queue.go) and sent
// when the current step ends; queued reports that. A task being restored answers ErrBusy.
func (t *Task) Continue(text string, images []string) (queued bool, err error) {
	if t.OpenAsk() != "" {
		if err := answer(t.parts, -1, tools.Answer{Text: text, Images: images}); !errors.Is(err, ErrNoOpenAsk) {
			return false, err
		}
	}
	return t.state.Continue(func() { t.queue.Push(text, images) }, runOf(t.parts, feedbackOpening(t.parts, text, images)))
}
