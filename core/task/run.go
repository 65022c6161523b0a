package task

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
)

// The runtime of a task. Concurrency rules:
//
//   - A task starts goroutines only through goLocked: a run of the loop (at most one, t.step.run),
//     and a resume question (at most one, t.step.resume); the run's first checkpoint runs on a
//     goroutine of core/task/checkpoints, which the run waits for before it ends. Each has its own
//     context, made here and never stored; the activity keeps only its cancel func and a
//     done channel.
//   - startRun is the one critical section that decides busy or not: it refuses while a run
//     is active, a restore is in progress or the task is closed, and installs the run before
//     it lets go of the lock.
//   - A message sent while a run is active waits in t.queue (queue.go). The run takes it at
//     the end of its current step; a run that ends with messages still queued starts the next
//     run with them under the same lock that clears t.step.run, so no other start slips between.
//   - Close marks the task closed (nothing new starts), cancels what runs and waits for every
//     goroutine it started before it closes the log.
//   - A panic on a task goroutine is recovered there: the daemon and the other tasks go on;
//     the stack goes to the daemon log and the chat shows a short error.

// goLocked starts fn on its own goroutine with a fresh context that Cancel or Close ends.
// t.mu is held and the task is not closed.
func (t *Task) goLocked(what string, fn func(ctx context.Context)) *activity {
	ctx, cancel := context.WithCancel(context.Background())
	a := &activity{cancel: cancel, done: make(chan struct{})}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer close(a.done)
		defer cancel()
		defer t.recoverBug(what)
		fn(ctx)
	}()
	return a
}

// startRun starts the loop with the first user content unless the task is busy, being
// restored or closed. prepare runs first on the loop's goroutine (it posts the user's row,
// which therefore appears only when the run was accepted).
func (t *Task) startRun(prepare func(), first func(ctx context.Context) []llm.Content, firstTurn bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.startRunLocked(prepare, first, firstTurn)
}

// startRunLocked is startRun with t.mu held.
func (t *Task) startRunLocked(prepare func(), first func(ctx context.Context) []llm.Content, firstTurn bool) error {
	if err := t.step.startable(); err != nil {
		return err
	}
	t.status = StatusRunning
	t.publishStateLocked()
	var a *activity
	a = t.goLocked("the task loop", func(ctx context.Context) {
		end := endFailed
		defer func() {
			t.afterRun(end)
			t.mu.Lock()
			if t.step.run == a {
				t.step.run = nil
			}
			switch {
			case t.sendQueuedLocked(end == endCancelled):
				// The queued messages continue the task instead of a resume question.
			case end == endCancelled:
				t.askResumeLocked()
			}
			t.mu.Unlock()
		}()
		defer func() {
			if r := recover(); r != nil {
				end = endFailed
				t.reportBug("the task loop", r)
			}
		}()
		defer t.cps.AwaitFirst(ctx)
		if prepare != nil {
			prepare()
		}
		end = t.loop(ctx, first(ctx), firstTurn)
		t.bg.StopAll(ctx, end.stopWhy())
		switch end {
		case endCompleted:
			t.hooks.Completed(ctx)
		case endCancelled:
			t.hooks.Cancelled(ctx)
		}
	})
	t.step.run = a
	return nil
}

// afterRun settles the task when the loop returns.
func (t *Task) afterRun(end ending) {
	t.conv.FinishPartials()
	switch end {
	case endCompleted:
		t.conv.SetMeta(func(m *store.Meta) { m.Completed = true })
		t.setStatus(StatusCompleted)
	case endFailed:
		t.setStatus(StatusFailed)
	case endCancelled:
		t.setStatus(StatusCancelled)
	}
}

// askResumeLocked asks the resume question (resume_task, or resume_completed_task) unless the
// task is closed, being restored, running, or already asking something. The question is open
// when this returns, so a message sent right after answers it rather than racing it.
func (t *Task) askResumeLocked() {
	if !t.step.quiet() || t.step.resume != nil || t.asks.Open() != nil || t.sub != nil {
		return
	}
	meta := t.conv.Meta()
	completed := meta.Completed
	elapsed := t.deps.Now().Sub(meta.Updated)
	kind := msg.AskResumeTask
	if completed {
		kind = msg.AskResumeCompletedTask
	}
	pa := t.postAskLocked(kind, "", nil)
	var a *activity
	a = t.goLocked("the resume question", func(ctx context.Context) {
		ans, err := t.awaitAnswer(ctx, pa)
		t.mu.Lock()
		if t.step.resume == a {
			t.step.resume = nil
		}
		t.mu.Unlock()
		if err == nil {
			t.resume(ans, completed, elapsed)
		}
	})
	t.step.resume = a
}

// Cancel stops the running request and tools and waits, until ctx's deadline (cancelWait when
// it has none), for the loop to stop; the task then asks to be resumed. It returns ErrBusy
// when the loop did not stop in time.
func (t *Task) Cancel(ctx context.Context) error {
	t.mu.Lock()
	a := t.step.run
	t.mu.Unlock()
	if a == nil {
		return nil
	}
	a.cancel()
	return waitDone(ctx, a.done)
}

// waitDone waits for done until ctx ends; a ctx without a deadline is given cancelWait.
func waitDone(ctx context.Context, done <-chan struct{}) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cancelWait, errStopTimeout)
		defer cancel()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		if context.Cause(ctx) == errStopTimeout {
			return fmt.Errorf("%w: the task did not stop within %s", ErrBusy, cancelWait)
		}
		return ctx.Err()
	}
}

// errStopTimeout is the cause of waitDone's own deadline.
var errStopTimeout = errors.New("the task did not stop in time")

// Done returns a channel closed when the current run ends (nil when idle).
func (t *Task) Done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.step.run == nil {
		return nil
	}
	return t.step.run.done
}

// Close stops the task: nothing new starts, the run and the resume question are cancelled,
// and Close waits (until ctx's deadline, cancelWait when it has none) for every goroutine the
// task started before it closes the log and ends its subscriptions. A goroutine stuck past ctx is reported in the log; its
// later writes fail harmlessly.
func (t *Task) Close(ctx context.Context) {
	t.mu.Lock()
	if t.step.closed {
		t.mu.Unlock()
		return
	}
	t.step.closed = true
	for _, a := range []*activity{t.step.run, t.step.resume} { // every goroutine goLocked started
		if a != nil {
			a.cancel()
		}
	}
	t.mu.Unlock()

	all := make(chan struct{})
	go func() {
		t.wg.Wait()
		close(all)
	}()
	if err := waitDone(ctx, all); err != nil {
		t.deps.Logger.Error("task: closing without waiting for a stuck goroutine", "task", t.id, "err", err)
	}
	if err := t.cps.Close(ctx); err != nil {
		t.deps.Logger.Error("task: closing without waiting for a stuck goroutine", "task", t.id, "err", err)
	}

	t.mu.Lock()
	defer t.mu.Unlock()
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
	return t.startRun(func() {
		t.conv.Say(msg.SayTask, text, nil, false)
		if mode := t.conv.Meta().Mode; !t.cfg.PricesKnown(mode == ModePlan) {
			m := t.cfg.For(mode == ModePlan)
			if note := t.guards.UnpricedNote(m.Name, m.Info.Included); note != "" {
				t.conv.Say(msg.SayInfo, note, nil, false)
			}
		}
		t.conv.Attach(images, files)
	}, func(ctx context.Context) []llm.Content {
		meta := t.hooks.Meta()
		meta.InitialTask = text
		t.hooks.Fire(ctx, hooks.TaskStart, hooks.TaskData{TaskMetadata: meta})
		t.hooks.Prompt(ctx, text, files)
		content := []llm.Content{llm.Text("<task>\n" + t.deps.Turns.ExpandUser(ctx, text) + "\n</task>")}
		return append(content, imageContents(images)...)
	}, true)
}

// resume continues the conversation after an interruption with a resumption note.
func (t *Task) resume(ans tools.Answer, completed bool, elapsed time.Duration) {
	t.mu.Lock()
	err := t.resumeLocked(ans, completed, elapsed)
	t.mu.Unlock()
	if err != nil {
		t.deps.Logger.Info("task: resume not started", "task", t.id, "err", err)
	}
}

// resumeLocked is resume's start with t.mu held.
func (t *Task) resumeLocked(ans tools.Answer, completed bool, elapsed time.Duration) error {
	return t.startRunLocked(func() {
		if ans.Text != "" {
			t.conv.Say(msg.SayUserFeedback, ans.Text, nil, false)
		}
	}, func(ctx context.Context) []llm.Content {
		t.hooks.Resume(ctx, t.conv.Messages())
		if ans.Text != "" {
			t.hooks.Prompt(ctx, ans.Text, nil)
		}
		var content []llm.Content
		// A user turn left without an answer (the request was in flight) is merged into this one.
		if m, ok := t.conv.TakeUnanswered(); ok {
			content = append(content, withoutEnvDetails(m.Content)...)
		}
		var mode string
		t.conv.SetMeta(func(m *store.Meta) { mode, m.Completed = m.Mode, false })
		content = append(content, llm.Text(prompt.ResumeNote(elapsed, completed, mode)))
		content = append(content, interruptedCommandNote(t.conv.History(), t.conv.Messages())...)
		content = append(content, t.bg.GoneNote(t.conv.Messages())...)
		if ans.Text != "" {
			content = append(content, llm.Text("<user_message>\n"+t.deps.Turns.ExpandUser(ctx, ans.Text)+"\n</user_message>"))
		}
		return append(content, imageContents(ans.Images)...)
	}, false)
}

// Continue sends new user text to the task: it answers the open question, or restarts the
// loop with the text as feedback when the task is not running (after completion, failure or
// cancel). While a run is active without a question the text is queued (queue.go) and sent
// when the current step ends; queued reports that. A task being restored answers ErrBusy.
func (t *Task) Continue(text string, images []string) (queued bool, err error) {
	if t.OpenAsk() != "" {
		if err := t.Answer(-1, tools.Answer{Text: text, Images: images}); !errors.Is(err, ErrNoOpenAsk) {
			return false, err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.step.run != nil && !t.step.closed && !t.step.restoring {
		t.enqueueLocked(text, images)
		return true, nil
	}
	return false, t.feedbackLocked(text, images)
}

// feedbackLocked starts a run with the user's text as feedback; t.mu is held.
func (t *Task) feedbackLocked(text string, images []string) error {
	return t.startRunLocked(func() {
		t.conv.Say(msg.SayUserFeedback, text, nil, false)
	}, func(ctx context.Context) []llm.Content {
		t.hooks.Prompt(ctx, text, nil)
		c := []llm.Content{llm.Text(feedbackOpen + t.deps.Turns.ExpandUser(ctx, text) + "\n</feedback>")}
		return append(c, imageContents(images)...)
	}, false)
}

// sendQueuedLocked starts the next run with the queued messages when a run has ended: after
// an interruption it resumes the task with them, otherwise they are feedback. It reports
// whether a run started. t.mu is held and t.step.run is nil.
func (t *Task) sendQueuedLocked(cancelled bool) bool {
	if !t.step.quiet() || t.asks.Open() != nil || t.queue.Len() == 0 {
		return false
	}
	j, _ := t.popQueueLocked()
	ans := tools.Answer{Text: j.Text, Images: j.Images}
	var err error
	if cancelled {
		meta := t.conv.Meta()
		err = t.resumeLocked(ans, meta.Completed, t.deps.Now().Sub(meta.Updated))
	} else {
		err = t.feedbackLocked(ans.Text, ans.Images)
	}
	if err != nil {
		// Nothing else can start while t.mu is held, so this is a bug; keep the messages.
		t.deps.Logger.Error("bug: queued messages not sent", "task", t.id, "err", err)
		t.enqueueLocked(ans.Text, ans.Images)
		return false
	}
	return true
}

// withoutEnvDetails drops the environment details block of an old turn (a fresh one follows).
func withoutEnvDetails(cs []llm.Content) []llm.Content {
	out := make([]llm.Content, 0, len(cs))
	for _, c := range cs {
		if c.Type == llm.ContentText && strings.HasPrefix(c.Text, "<environment_details>") {
			continue
		}
		out = append(out, c)
	}
	return out
}
