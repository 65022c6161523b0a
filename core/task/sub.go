package task

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
)

// Subagents: a task run inside one tool call of another task (its parent), with its own
// context window. A subagent is kept nowhere — no log, not in the manager's list — and never
// asks the user anything: an approval the auto-approval policy does not give is refused,
// attempt_completion is accepted at once (its result is the report the parent receives), and
// every other question (mistake limit, failed request, a limit) ends it as failed. Each of
// its requests and their cost are charged to the parent's account as they happen, and the
// parent's limits stop it as well as its own bound.

//go:embed sub_refused.md
var subRefused string

// SubOptions tie a subagent to its parent.
type SubOptions struct {
	// Account is the parent's (required).
	Account tools.Account
	// MaxRequests bounds the subagent's own requests (0: 20).
	MaxRequests int
	// OnChange is told, without any lock held and from the subagent's goroutine, that its
	// state changed: a request started or ended, or a tool is about to run. Nil: nobody is.
	OnChange func()
}

// defaultSubRequests bounds a subagent's requests when SubOptions leave it open.
const defaultSubRequests = 20

// NewSub returns a subagent over deps, ready to Start with its prompt (RunSubs does it).
func NewSub(deps Deps, opts SubOptions) *Task {
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = defaultSubRequests
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	now := deps.Now()
	meta := store.Meta{ID: "sub-" + newID(now), Model: deps.Model, Mode: ModeAct, Created: now, Updated: now}
	deps.Settings.TaskLimits.MaxRequests = opts.MaxRequests
	deps.Settings.TaskLimits.MaxCost = 0
	t := newTask(meta, deps, nil)
	t.sub = &opts
	return t
}

// SubResult is how a subagent ended.
type SubResult struct {
	// Done is set when the subagent finished with attempt_completion; Report is then its
	// result. Otherwise Error says what stopped it.
	Done     bool
	Report   string
	Error    string
	Requests int
	Cost     float64
}

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
			s.stopRun()
		}
	}
	for i, s := range subs {
		s.Close(context.WithoutCancel(ctx))
		if started[i] {
			out[i] = s.subResult()
		}
	}
	return out
}

// stopRun cancels the running loop without waiting for it.
func (t *Task) stopRun() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.step.run != nil {
		t.step.run.cancel()
	}
}

// subResult reads how a subagent that has stopped ended.
func (t *Task) subResult() SubResult {
	ms := t.conv.Messages()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := SubResult{Requests: t.guards.Requests(), Cost: t.conv.Meta().Cost}
	if t.status == StatusCompleted {
		for i := len(ms) - 1; i >= 0; i-- {
			if m := ms[i]; m.Type == msg.Say && m.Kind == msg.SayCompletionResult {
				r.Done, r.Report = true, m.Text
				return r
			}
		}
	}
	r.Error = "it stopped before it reported"
	if t.status == StatusCancelled {
		r.Error = "it was cancelled"
	}
	for i := len(ms) - 1; i >= 0; i-- {
		if m := ms[i]; m.Type == msg.Say && m.Kind == msg.SayError {
			r.Error = m.Text
			break
		}
	}
	return r
}

// LastTool returns the tool the task used last with its main argument ("" before any).
func (t *Task) LastTool() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastTool
}

// subAnswer is how a subagent answers its own questions.
func subAnswer(kind msg.Kind) tools.Answer {
	if kind == msg.AskCompletionResult {
		return tools.Answer{Approved: true}
	}
	return tools.Answer{}
}

// subChanged tells the subagent's observer that something changed.
func (t *Task) subChanged() {
	if t.sub != nil && t.sub.OnChange != nil {
		t.sub.OnChange()
	}
}

// subLimit says why a subagent must stop before its next request ("" when it may go on).
func (t *Task) subLimit() string {
	n, limit := t.guards.Requests(), t.guards.Limits().MaxRequests
	if limit > 0 && n >= limit {
		return fmt.Sprintf("The subagent stopped at its limit of %d requests without reporting.", limit)
	}
	if why := t.sub.Account.Exhausted(); why != "" {
		return "The subagent stopped: the parent task reached its limit. " + why
	}
	return ""
}

// noteTool records the tool a subagent is about to run.
func (t *Task) noteTool(spec tools.Spec, call tools.Call) {
	if t.sub == nil {
		return
	}
	what := spec.Name
	if arg := strings.TrimSpace(call.Params[spec.ArgParam]); spec.ArgParam != "" && arg != "" {
		if len(arg) > 80 {
			arg = strings.ToValidUTF8(arg[:80], "") + "…"
		}
		what += " " + arg
	}
	t.mu.Lock()
	t.lastTool = what
	t.mu.Unlock()
	t.subChanged()
}

// account is a task's tools.Account: what its subagents charge to it.
type account struct{ t *Task }

func (a account) AddRequest() { a.t.countRequest() }

func (a account) AddUsage(u llm.Usage, cost float64) {
	t := a.t
	t.conv.AddUsage(u, cost, false)
	t.mu.Lock()
	t.publishStateLocked()
	t.mu.Unlock()
}

func (a account) Exhausted() string {
	return a.t.overLimit()
}
