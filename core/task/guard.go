package task

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools"
)

// Guard rails the loop applies on its own, whatever the model does: per-task limits on
// requests and cost, checked before every request, and the loop stop, which refuses the same
// tool call a third time in a row. Both stop the task with a question; continuing lets the
// user's words reach the model.

// repeatLimit is how many identical tool calls in a row make the loop stop; the last of them
// is not run.
const repeatLimit = 3

//go:embed repeated.md
var repeatedNote string

// guards is what the guard rails count: model mistakes in a row (the mistake limit, loop.go),
// auto-approvals in a row (their cap, run_tool.go), failed edits per file, identical calls in
// a row (the loop stop), the task's limits and the requests made toward them. Its fields are
// guarded by Task.mu (docs/task-runtime.md).
type guards struct {
	mistakes     int
	autoApproved int
	editFailures map[string]int
	repeat       repeatState
	limits       config.TaskLimits
	requests     int // model requests made, toward limits.MaxRequests
}

func newGuards(limits config.TaskLimits) guards {
	return guards{limits: limits, editFailures: map[string]int{}}
}

// mistake counts a model mistake; it also starts the repeat count over (one event, one
// counter).
func (g *guards) mistake() {
	g.mistakes++
	g.repeat = repeatState{}
}

// editFailed counts a failed edit of path and reports whether it was the third in a row,
// which counts as a mistake and starts the file's count over. Failed edits are the mistake
// limit's, so they start the repeat count over too.
func (g *guards) editFailed(path string) bool {
	g.repeat = repeatState{}
	g.editFailures[path]++
	if g.editFailures[path] < 3 {
		return false
	}
	g.mistakes++
	g.editFailures[path] = 0
	return true
}

// succeeded ends the run of mistakes after a call that worked (and, for an edit, the file's
// run of failures).
func (g *guards) succeeded(edit bool, path string) {
	if edit {
		delete(g.editFailures, path)
	}
	g.mistakes = 0
}

// restart forgets the mistakes and failed edits in a row (a restore went back before them).
func (g *guards) restart() {
	g.editFailures = map[string]int{}
	g.mistakes = 0
}

// autoApproval counts an auto-approval and reports whether it goes past limit (0: none).
func (g *guards) autoApproval(limit int, yolo bool) bool {
	g.autoApproved++
	return limit > 0 && g.autoApproved > limit && !yolo
}

// repeated counts a call with key and reports whether it is the same call a repeatLimit-th
// time in a row.
func (g *guards) repeated(key string) bool {
	if g.repeat.key != key {
		g.repeat = repeatState{key: key}
	}
	g.repeat.count++
	return g.repeat.count >= repeatLimit
}

// overLimit says, in words for the user, which limit the next request would go past at cost
// so far; "" when none.
func (g *guards) overLimit(cost float64) string {
	l := g.limits
	switch {
	case l.MaxRequests > 0 && g.requests >= l.MaxRequests:
		return fmt.Sprintf("This task has made %d model requests, its limit of %d.", g.requests, l.MaxRequests)
	case l.MaxCost > 0 && cost >= l.MaxCost:
		return fmt.Sprintf("This task has cost $%.4f, at or over its limit of $%.2f.", cost, l.MaxCost)
	}
	return ""
}

// raiseReached moves each limit that was reached (at cost so far) by its step: the size set
// in base, else the limit's own size.
func (g *guards) raiseReached(base config.TaskLimits, cost float64) {
	if l := &g.limits; l.MaxRequests > 0 && g.requests >= l.MaxRequests {
		l.MaxRequests = g.requests + step(base.MaxRequests, l.MaxRequests)
	}
	if l := &g.limits; l.MaxCost > 0 && cost >= l.MaxCost {
		l.MaxCost = cost + stepF(base.MaxCost, l.MaxCost)
	}
}

// Limits returns the task's request and cost limits (0: none).
func (t *Task) Limits() config.TaskLimits {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.guards.limits
}

// SetLimits replaces the task's limits (the task header's control). A task stopped at a
// limit goes on when its question is answered.
func (t *Task) SetLimits(l config.TaskLimits) error {
	if l.MaxRequests < 0 || l.MaxCost < 0 || math.IsNaN(l.MaxCost) || math.IsInf(l.MaxCost, 0) {
		return fmt.Errorf("%w: limits must be zero (none) or positive", ErrBadRequest)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.guards.limits = l
	t.publishStateLocked()
	return nil
}

// pricesKnown reports whether the model's requests can be priced (the model table or the
// settings' prices); without prices a cost limit counts only what the provider reports.
func (t *Task) pricesKnown(mode string) bool {
	i := t.modelFor(mode).info
	return i.InputPrice > 0 || i.OutputPrice > 0
}

// noteUnpricedLimit tells the user at the start of a task when its cost limit cannot be
// enforced from prices: it is never silently ignored.
func (t *Task) noteUnpricedLimit() {
	t.mu.Lock()
	limit, mode := t.guards.limits.MaxCost, t.conv.meta.Mode
	t.mu.Unlock()
	if limit <= 0 || t.pricesKnown(mode) {
		return
	}
	if t.modelFor(mode).info.Included {
		t.say(msg.SayInfo, fmt.Sprintf("The cost limit of $%.2f does not apply to this task: its requests go to the editor's own "+
			"language models, which are included with the editor and have no price. The request limit applies as usual.", limit), nil, false)
		return
	}
	model := "this model"
	if m := t.modelFor(mode).name; m != "" {
		model = m
	}
	t.say(msg.SayInfo, fmt.Sprintf("The cost limit of $%.2f cannot be checked from prices: Cairn does not know the prices of %s. "+
		"Only costs the provider reports count toward it; set api.inputPrice and api.outputPrice (USD per million tokens) to price every request.",
		limit, model), nil, false)
}

// overLimitLocked says, in words for the user, which limit the next request would go past;
// "" when none.
func (t *Task) overLimitLocked() string {
	return t.guards.overLimit(t.conv.meta.Cost)
}

// checkLimits runs before each model request. At a limit it asks: continue (the limit that
// was reached grows by its own size again, unless the user already raised it), or stop. It
// returns the user's words for the model, or the ending when the task stops.
func (t *Task) checkLimits(ctx context.Context) (string, ending) {
	if t.sub != nil {
		if why := t.subLimit(); why != "" {
			t.say(msg.SayError, why, nil, false)
			return "", endFailed
		}
		return "", 0
	}
	t.mu.Lock()
	why := t.overLimitLocked()
	t.mu.Unlock()
	if why == "" {
		return "", 0
	}
	ans, err := t.ask(ctx, msg.AskTaskLimitReached, why+" Continue, raise the limit, or stop the task.", nil)
	if err != nil {
		return "", endCancelled
	}
	if !ans.Approved && ans.Text == "" {
		return "", endFailed
	}
	base := t.settings().TaskLimits
	t.mu.Lock()
	t.guards.raiseReached(base, t.conv.meta.Cost)
	t.publishStateLocked()
	t.mu.Unlock()
	if ans.Text != "" {
		t.say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	return ans.Text, 0
}

// step is how far continuing moves a limit: the size set in the settings, else the limit's
// own size.
func step(setting, current int) int {
	if setting > 0 {
		return setting
	}
	return current
}

func stepF(setting, current float64) float64 {
	if setting > 0 {
		return setting
	}
	return current
}

// countRequest counts a model request toward the task's request limit.
func (t *Task) countRequest() {
	t.mu.Lock()
	t.guards.requests++
	t.publishStateLocked()
	t.mu.Unlock()
	if t.sub != nil {
		t.sub.Account.AddRequest()
		t.subChanged()
	}
}

// countRequests counts the requests recorded in a task's messages, its subagents' included
// (a task loaded from history keeps what it already made).
func countRequests(ms []msg.Message) int {
	n := 0
	for _, m := range ms {
		if m.Type != msg.Say {
			continue
		}
		switch m.Kind {
		case msg.SayAPIReqStarted:
			n++
		case msg.SaySubagents:
			var s msg.Subagents
			if json.Unmarshal([]byte(m.Text), &s) == nil {
				for _, c := range s.Children {
					n += c.Requests
				}
			}
		}
	}
	return n
}

// repeatState follows identical tool calls in a row.
type repeatState struct {
	key   string
	count int
}

// callKey identifies a call by its tool and parameters; the todo list it carries is not part
// of what the call does.
func callKey(b parse.Block) string {
	keys := make([]string, 0, len(b.Params))
	for k := range b.Params {
		if k != tools.TaskProgressParam {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var s strings.Builder
	s.WriteString(b.Name)
	for _, k := range keys {
		fmt.Fprintf(&s, "\x00%s\x00%s", k, b.Params[k])
	}
	return s.String()
}

// repeating counts b and reports whether it is the same call a repeatLimit-th time in a row.
func (t *Task) repeating(b parse.Block) bool {
	key := callKey(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.guards.repeated(key)
}

// forgetRepeats starts the count over. Calls the mistake limit counts (a missing parameter,
// an unknown tool, an edit that failed) start it over as well: one event, one counter.
func (t *Task) forgetRepeats() {
	t.mu.Lock()
	t.guards.repeat = repeatState{}
	t.mu.Unlock()
}

// stopRepeating handles a call made a third time in a row: it is not run, the task asks the
// user, and continuing starts the count over and passes the user's words to the model.
func (t *Task) stopRepeating(ctx context.Context, b parse.Block) ([]llm.Content, ending) {
	t.discardPreviews(ctx)
	what := b.Name
	if tool, ok := t.deps.Registry.Get(b.Name); ok {
		spec := tool.Spec()
		if arg := strings.TrimSpace(b.Params[spec.ArgParam]); spec.ArgParam != "" && arg != "" {
			if len(arg) > 120 {
				arg = strings.ToValidUTF8(arg[:120], "") + "…"
			}
			what += " " + arg
		}
	}
	ans, err := t.ask(ctx, msg.AskRepeatedToolCall, fmt.Sprintf("Cairn is repeating itself: it made the same call (%s) %d times in a row. "+
		"The last one was not run. Continue with guidance, or stop the task.", what, repeatLimit), nil)
	if err != nil {
		return nil, endCancelled
	}
	if !ans.Approved && ans.Text == "" {
		return nil, endFailed
	}
	t.forgetRepeats()
	header := "[" + b.Name + "] Result:"
	if tool, ok := t.deps.Registry.Get(b.Name); ok {
		header = resultHeader(tool.Spec(), tools.Call{Name: b.Name, Params: b.Params})
	}
	res := tools.Result{Text: strings.TrimSpace(repeatedNote), UserFeedback: ans.Text}
	if ans.Text != "" {
		t.say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	return t.toolContent(ctx, header, res), 0
}
