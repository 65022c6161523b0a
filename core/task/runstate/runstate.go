// Package runstate owns what a task is running now and its status: the run of the loop, the
// resume question being asked, a restore in progress, whether the task was closed, and the
// goroutines the task starts for them. Its methods are the decisions taken on that state: whether
// a run may start (the one place that decides busy), what follows when a run ends (the queued
// messages or the resume question), the status around a question, a restore, a close
// (docs/task-runtime.md, "The run state").
//
// A decision that must also look at the task's other owners (the open question, the queue)
// reaches them through Task, with this owner's lock held: so the decision is one step, and the
// other owners' own locks are taken inside this one, never the other way round.
package runstate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// Status is what the task is doing.
type Status string

// Statuses.
const (
	Idle      Status = "idle"
	Running   Status = "running"
	Waiting   Status = "waiting"
	Completed Status = "completed"
	Cancelled Status = "cancelled"
	Failed    Status = "failed"
)

// Errors of the decisions.
var (
	ErrBusy   = errors.New("the task is busy")
	ErrClosed = errors.New("the task is closed")
)

// CancelWait bounds how long Cancel and Close wait for the task's goroutines when the caller's
// ctx has no deadline: a tool that ignores its context must not hang the caller.
const CancelWait = 5 * time.Second

// A Run is one run of the task's loop, from its opening to its end, on a goroutine of the
// owner with a context that Cancel and Close end. It returns the status the task ends it in
// (Completed, Cancelled or Failed).
type Run func(ctx context.Context) Status

// A Question is a question posted in the task's chat, the open one until it is answered or
// withdrawn (core/task/asks keeps it).
type Question interface {
	// Row is the question's row in the chat.
	Row() int
	// Wait waits for the answer or ctx.
	Wait(ctx context.Context) (tools.Answer, error)
	// Withdraw closes the question without an answer; false when it was no longer open.
	Withdraw() bool
	// FromQueue answers the question at once with the queued messages when they answer a
	// question of its kind, calling published after each change of the queue it makes.
	FromQueue(published func())
}

// Task is what the owner's decisions consult in the task's other owners. Its methods are
// called with the owner's lock held: they take only those owners' own locks and the event
// broker's, and never call back into the Owner.
type Task interface {
	// Publish publishes the task's header with status; headers go out in the order of the
	// decisions that changed them.
	Publish(status Status)
	// AskOpen reports whether a question is open.
	AskOpen() bool
	// Post posts a question in the chat and makes it the open one.
	Post(kind msg.Kind, text string, payload msg.Payload, why *msg.Why) Question
	// Resume posts the question that asks to resume the task and returns it with the run its
	// answer opens; false, posting nothing, when the task never asks it (a subagent).
	Resume() (Question, func(tools.Answer) Run, bool)
	// Queued takes the queued messages as the run they open (cancelled: the run before them
	// was cancelled, so they resume the task); false when none wait.
	Queued(cancelled bool) (Run, bool)
	// NotResumed is told that the run a resume question's answer opens could not start.
	NotResumed(err error)
	// Recover is deferred on every goroutine the owner starts: it reports a panic there
	// (docs/conventions.md, "Bugs are reported and survived").
	Recover(where string)
}

// activity is a goroutine the owner started: a run of the loop or a resume question.
type activity struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned
}

// Owner is a task's run state.
type Owner struct {
	t  Task
	wg sync.WaitGroup // the goroutines started (runs, resume questions); Close waits for them

	// mu guards every field below. It is taken before the other owners' locks (Task's methods
	// take them under it), never after.
	mu        sync.Mutex
	status    Status
	run       *activity // the running loop, nil when idle
	resume    *activity // the resume question being asked, nil when none
	restoring bool      // a checkpoint restore is in progress
	closed    bool      // Close was called: nothing new starts
}

// New returns an idle task's run state; t is what its decisions consult.
func New(t Task) *Owner { return &Owner{t: t, status: Idle} }

// Read calls f with the status, under the owner's lock: what f reads of the task (a
// snapshot, a subscription) falls between two published headers, never across one. f must
// not call the owner.
func (o *Owner) Read(f func(status Status)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f(o.status)
}

// Publish publishes the task's header as it stands.
func (o *Owner) Publish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.t.Publish(o.status)
}

// Change runs f, a change of the task's settings, told whether the task was closed; changes
// are serialised with each other and with the owner's decisions. The header is published
// after f unless f fails, whose error is returned.
func (o *Owner) Change(f func(closed bool) error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := f(o.closed); err != nil {
		return err
	}
	o.t.Publish(o.status)
	return nil
}

// goLocked starts fn on its own goroutine with a fresh context that Cancel or Close ends; fn is
// given the activity it runs as. o.mu is held and the task is not closed.
func (o *Owner) goLocked(what string, fn func(ctx context.Context, a *activity)) *activity {
	ctx, cancel := context.WithCancel(context.Background())
	a := &activity{cancel: cancel, done: make(chan struct{})}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer close(a.done)
		defer cancel()
		defer o.t.Recover(what)
		fn(ctx, a)
	}()
	return a
}

// startable says why a run cannot start now (ErrClosed, ErrBusy), or nil.
func (o *Owner) startable() error {
	switch {
	case o.closed:
		return ErrClosed
	case o.run != nil || o.restoring:
		return ErrBusy
	}
	return nil
}

// quiet reports that nothing runs and nothing stops a new run from starting: not closed, no
// restore, no loop.
func (o *Owner) quiet() bool { return !o.closed && !o.restoring && o.run == nil }

// Start starts run unless the task is running, being restored or closed (ErrBusy,
// ErrClosed): the one decision of busy. The run is installed before Start returns.
func (o *Owner) Start(run Run) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.startLocked(run)
}

// startLocked is Start with o.mu held.
func (o *Owner) startLocked(run Run) error {
	if err := o.startable(); err != nil {
		return err
	}
	o.launchLocked(run)
	return nil
}

// launchLocked starts run; o.mu is held and the task is quiet. The run ends in one critical
// section (ended).
func (o *Owner) launchLocked(run Run) {
	o.status = Running
	o.t.Publish(o.status)
	o.run = o.goLocked("the task loop", func(ctx context.Context, a *activity) {
		end := Failed
		defer func() { o.ended(a, end) }()
		end = run(ctx)
	})
}

// ended is the end of run a in status end: the run is cleared, and the queued messages start
// the next run, or a cancelled task asks to be resumed.
func (o *Owner) ended(a *activity, end Status) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.status != end {
		o.status = end
		o.t.Publish(o.status)
	}
	if o.run == a {
		o.run = nil
	}
	switch {
	case o.sendQueuedLocked(end == Cancelled):
		// The queued messages continue the task instead of a resume question.
	case end == Cancelled:
		o.askResumeLocked()
	}
}

// sendQueuedLocked starts the next run with the queued messages once a run has ended and no
// question is open; it reports whether a run started. o.mu is held.
func (o *Owner) sendQueuedLocked(cancelled bool) bool {
	if !o.quiet() || o.t.AskOpen() {
		return false
	}
	run, ok := o.t.Queued(cancelled)
	if !ok {
		return false
	}
	o.t.Publish(o.status)
	o.launchLocked(run)
	return true
}

// Continue decides where the user's new message goes: while a run is active it is queued
// (queue, then the header is published) and Continue reports true; otherwise run starts with
// it (Start's errors).
func (o *Owner) Continue(queue func(), run Run) (queued bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.run != nil && !o.closed && !o.restoring {
		queue()
		o.t.Publish(o.status)
		return true, nil
	}
	return false, o.startLocked(run)
}

// AskResume asks the resume question unless the task is closed, being restored, running, or
// already asking something (a task opened from the store asks it). The question is open when
// this returns, so a message sent right after answers it rather than racing it.
func (o *Owner) AskResume() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.askResumeLocked()
}

// askResumeLocked is AskResume with o.mu held.
func (o *Owner) askResumeLocked() {
	if !o.quiet() || o.resume != nil || o.t.AskOpen() {
		return
	}
	q, opens, ok := o.t.Resume()
	if !ok {
		return
	}
	prev := o.waitingLocked()
	o.resume = o.goLocked("the resume question", func(ctx context.Context, a *activity) {
		ans, err := o.await(ctx, q, prev)
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.resume == a {
			o.resume = nil
		}
		if err != nil {
			return
		}
		if err := o.startLocked(opens(ans)); err != nil {
			o.t.NotResumed(err)
		}
	})
}

// Ask posts a question and waits for its answer or ctx; it returns the answer and the
// question's row. The task waits while the question is open. A queued message answers it at
// once when it answers questions of its kind, in the same step as the post, so no other
// answer falls between.
func (o *Owner) Ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, why *msg.Why) (tools.Answer, int, error) {
	o.mu.Lock()
	q := o.t.Post(kind, text, payload, why)
	prev := o.waitingLocked()
	q.FromQueue(func() { o.t.Publish(o.status) })
	o.mu.Unlock()
	ans, err := o.await(ctx, q, prev)
	return ans, q.Row(), err
}

// waitingLocked sets the status to Waiting, a question having been posted, and returns the
// status before it; o.mu is held.
func (o *Owner) waitingLocked() Status {
	prev := o.status
	o.status = Waiting
	o.t.Publish(o.status)
	return prev
}

// await waits for the answer to q, posted in status prev, or ctx.
func (o *Owner) await(ctx context.Context, q Question, prev Status) (tools.Answer, error) {
	ans, err := q.Wait(ctx)
	o.mu.Lock()
	defer o.mu.Unlock()
	// Answered, or withdrawn (the command it was about ended, or the step was cancelled): the
	// task is no longer waiting for anyone; a cancelled run sets its own status after.
	if err == nil || q.Withdraw() {
		o.status = afterWaiting(o.status, prev)
		o.t.Publish(o.status)
	}
	return ans, err
}

// afterWaiting is the status once a question posted in status prev is answered or withdrawn,
// the task's status being now: the waiting a question set ends, and the task works on.
func afterWaiting(now, prev Status) Status {
	if now != Waiting {
		return now
	}
	if prev == Waiting || prev == Idle || prev == Cancelled || prev == Completed {
		return Running
	}
	return prev
}

// Answer runs answer, which answers the open question, as one of the owner's decisions: it
// never falls between a question's post and the queued message that answers it.
func (o *Owner) Answer(answer func() error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return answer()
}

// BeginRestore marks a restore in progress: nothing starts until the returned end, which asks
// the resume question again. A closed task answers ErrClosed, one being restored ErrBusy.
func (o *Owner) BeginRestore() (end func(), err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
		return nil, ErrClosed
	case o.restoring:
		return nil, fmt.Errorf("%w: a restore is already running", ErrBusy)
	}
	o.restoring = true
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.restoring = false
		o.askResumeLocked()
	}, nil
}

// Idle sets the status to idle, the conversation having been cut back to a checkpoint; the
// resume question that follows the restore publishes it.
func (o *Owner) Idle() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.status = Idle
}

// WithdrawResume withdraws the resume question being asked, if any, and waits (until ctx's
// deadline, CancelWait when it has none) for its goroutine.
func (o *Owner) WithdrawResume(ctx context.Context) error {
	return o.stop(ctx, func() *activity { return o.resume })
}

// Cancel stops the running loop and waits, until ctx's deadline (CancelWait when it has
// none), for it to end. It returns ErrBusy when the loop did not stop in time.
func (o *Owner) Cancel(ctx context.Context) error {
	return o.stop(ctx, func() *activity { return o.run })
}

// stop cancels the activity which returns (read under o.mu), if any, and waits for it until
// ctx's deadline (CancelWait when it has none).
func (o *Owner) stop(ctx context.Context, which func() *activity) error {
	o.mu.Lock()
	a := which()
	o.mu.Unlock()
	if a == nil {
		return nil
	}
	a.cancel()
	return waitDone(ctx, a.done)
}

// Done returns a channel closed when the current run ends (nil when idle).
func (o *Owner) Done() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.run == nil {
		return nil
	}
	return o.run.done
}

// Close marks the task closed (nothing new starts), cancels the run and the resume question
// and waits (until ctx's deadline, CancelWait when it has none) for every goroutine the owner
// started. It reports false when the task was closed already, and the error of a goroutine
// stuck past the wait.
func (o *Owner) Close(ctx context.Context) (bool, error) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return false, nil
	}
	o.closed = true
	for _, a := range []*activity{o.run, o.resume} { // every goroutine goLocked started
		if a != nil {
			a.cancel()
		}
	}
	o.mu.Unlock()

	all := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(all)
	}()
	return true, waitDone(ctx, all)
}

// waitDone waits for done until ctx ends; a ctx without a deadline is given CancelWait.
func waitDone(ctx context.Context, done <-chan struct{}) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, CancelWait, errStopTimeout)
		defer cancel()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		if context.Cause(ctx) == errStopTimeout {
			return fmt.Errorf("%w: the task did not stop within %s", ErrBusy, CancelWait)
		}
		return ctx.Err()
	}
}

// errStopTimeout is the cause of waitDone's own deadline.
var errStopTimeout = errors.New("the task did not stop in time")
