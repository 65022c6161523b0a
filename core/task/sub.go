package task

import (
	"context"
	"time"

	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/subagent"
)

// Subagents: a task run inside one tool call of another task (its parent), with its own
// context window. A subagent is kept nowhere — no log, not in the manager's list — and never
// asks the user anything: an approval the auto-approval policy does not give is refused,
// attempt_completion is accepted at once (its result is the report the parent receives), and
// every other question (mistake limit, failed request, a limit) ends it as failed. Each of
// its requests and their cost are charged to the parent's account as they happen, and the
// parent's limits stop it as well as its own bound.

// SubOptions tie a subagent to its parent (core/task/subagent).
type SubOptions = subagent.Options

// NewSub returns a subagent over deps, ready to Start with its prompt (RunSubs does it).
func NewSub(deps Deps, opts SubOptions) *Task {
	sub := subagent.New(opts)
	if deps.Now == nil {
		deps.Now = time.Now
	}
	now := deps.Now()
	mode := opts.Mode
	if mode == "" {
		mode = ModeAct
	}
	meta := store.Meta{ID: "sub-" + newID(now), Model: deps.Model, Mode: mode, Created: now, Updated: now}
	deps.Settings.TaskLimits.MaxRequests = sub.MaxRequests()
	deps.Settings.TaskLimits.MaxCost = 0
	t := newTask(meta, deps, nil)
	t.sub = sub
	return t
}

// SubResult is how a subagent ended.
type SubResult = subagent.Result

// RunSubs starts every subagent at once, each with its prompt, and waits until all have
// ended or ctx is done; then it stops what still runs and closes them all (bounded, each, by
// the task's cancel wait). It returns each one's outcome, in order. It starts no goroutine of
// its own: each subagent runs on the one its Start makes.
func RunSubs(ctx context.Context, subs []*Task, prompts []string) []SubResult {
	out := make([]SubResult, len(subs))
	started := make([]bool, len(subs))
	for i, s := range subs {
		if err := s.Start(prompts[i], nil, nil); err != nil {
			out[i].Error = err.Error()
			continue
		}
		started[i] = true
	}
	for _, s := range subs {
		done := s.Done()
		if done == nil {
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		for _, s := range subs {
			// ctx is done: Cancel stops the run and returns at once; Close below waits.
			_ = s.Cancel(ctx)
		}
	}
	for i, s := range subs {
		s.Close(context.WithoutCancel(ctx))
		if started[i] {
			status := s.State().Status
			out[i] = subagent.Outcome(s.conv.Messages(), status == StatusCompleted, status == StatusCancelled,
				s.guards.Requests(), s.conv.Meta().Cost)
		}
	}
	return out
}

// LastTool returns the tool the task used last with its main argument ("" before any, and
// for a task that is not a subagent).
func (t *Task) LastTool() string { return t.sub.LastTool() }
