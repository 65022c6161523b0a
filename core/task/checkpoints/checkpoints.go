// Package checkpoints owns a task's checkpoint rows: taking a snapshot of the workspace and
// posting its row, the run's first checkpoint taken in the background, and whether a
// completion changed files (docs/task-runtime.md, "Completion and changes").
//
// The first checkpoint of a run snapshots the workspace as the model first sees it. On a large
// workspace that takes seconds, and nothing needs it until something may change a file, so it
// runs on a goroutine of this owner while the first request goes out. The loop waits for it
// (AwaitFirst) before a tool that may change files runs or previews, and when the run ends, so
// it never outlives the run that started it; Close cancels it and waits for it.
package checkpoints

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/msg"
)

// Deps is what the owner needs from the task. Every func is called with no lock of this owner
// held.
type Deps struct {
	// Take snapshots the workspace (the task's Turns.Checkpoint): a hash is shown as a
	// checkpoint_created row, an error as an error row, "" with nil shows nothing.
	Take func(ctx context.Context) (string, error)
	// Say posts a row in the task's chat.
	Say func(kind msg.Kind, text string, payload msg.Payload, partial bool) int
	// NextAPIIndex is the index the next API message will have: a checkpoint row restores to it.
	NextAPIIndex func() int
	// Messages returns a copy of the task's chat rows.
	Messages func() []msg.Message
	// Bug reports a panic recovered on the first checkpoint's goroutine (docs/conventions.md,
	// "Bugs are reported and survived").
	Bug func(where string, r any)
	// Stuck is told that the first checkpoint did not stop when it was cancelled.
	Stuck func(err error)
	// StopWait bounds the wait for a cancelled first checkpoint when the caller's context has
	// no deadline.
	StopWait time.Duration
}

// first is the run's first checkpoint while it may still run.
type first struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when its goroutine has returned
}

// Owner is a task's checkpoints.
type Owner struct {
	deps Deps
	wg   sync.WaitGroup // the first checkpoints' goroutines; Close waits for them

	// mu guards first and closed.
	mu     sync.Mutex
	first  *first // the run's first checkpoint while it may still run, nil when none
	closed bool   // Close was called: no first checkpoint starts
}

// New returns the checkpoints of a task.
func New(deps Deps) *Owner { return &Owner{deps: deps} }

// Take takes a snapshot and shows the outcome; the next API message (the first request, or a
// tool's result) belongs to its row.
func (o *Owner) Take(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	o.commit(ctx, o.deps.NextAPIIndex())
}

// commit takes the snapshot and posts its row; apiIndex is the API message the row restores to.
func (o *Owner) commit(ctx context.Context, apiIndex int) {
	hash, err := o.deps.Take(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		o.deps.Say(msg.SayError, err.Error(), nil, false)
	case err == nil && hash != "":
		o.deps.Say(msg.SayCheckpointCreated, "", &msg.Checkpoint{Hash: hash, APIIndex: apiIndex}, false)
	}
}

// StartFirst starts the run's first checkpoint in the background, unless one is still running
// or the owner is closed; its row restores to the request about to be appended.
func (o *Owner) StartFirst(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	apiIndex := o.deps.NextAPIIndex()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.first != nil {
		return
	}
	// Its own context, ended by AwaitFirst's caller's cancel or by Close.
	cctx, cancel := context.WithCancel(context.Background())
	f := &first{cancel: cancel, done: make(chan struct{})}
	o.first = f
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer close(f.done)
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				o.deps.Bug("the first checkpoint", r)
			}
		}()
		o.commit(cctx, apiIndex)
	}()
}

// AwaitFirst waits until the run's first checkpoint is complete. When ctx ends first (the run
// was cancelled) the checkpoint is cancelled too and waited for, bounded by ctx's deadline or
// StopWait.
func (o *Owner) AwaitFirst(ctx context.Context) {
	o.mu.Lock()
	f := o.first
	o.mu.Unlock()
	if f == nil {
		return
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		f.cancel()
		if err := o.wait(context.WithoutCancel(ctx), f.done); err != nil {
			o.deps.Stuck(err)
		}
	}
	o.mu.Lock()
	if o.first == f {
		o.first = nil
	}
	o.mu.Unlock()
}

// Close cancels the first checkpoint, if one runs, and waits for it until ctx ends (StopWait
// when ctx has no deadline). Nothing starts after it.
func (o *Owner) Close(ctx context.Context) error {
	o.mu.Lock()
	o.closed = true
	if o.first != nil {
		o.first.cancel()
	}
	o.mu.Unlock()
	all := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(all)
	}()
	return o.wait(ctx, all)
}

// wait waits for done until ctx ends; a ctx without a deadline is given StopWait.
func (o *Owner) wait(ctx context.Context, done <-chan struct{}) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.deps.StopWait)
		defer cancel()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the first checkpoint did not stop: %w", context.Cause(ctx))
	}
}

// MarkChanges takes the completion's checkpoint and fills in p.Changes. Without checkpoints
// (off, failed) there is nothing to compare, and p.Changes says no changes.
func (o *Owner) MarkChanges(ctx context.Context, p *msg.Completion) {
	o.Take(ctx)
	changed := changedSinceCompletion(o.deps.Messages())
	p.Changes = &changed
}
