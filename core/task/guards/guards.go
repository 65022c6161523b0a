// Package guards keeps what a task's guard rails count (docs/architecture.md, "Guard rails"):
// model mistakes in a row (the mistake limit), auto-approvals in a row (their cap), failed
// edits per file, identical tool calls in a row (the loop stop), the task's limits on requests
// and cost, and the requests made toward them. The task asks the user when a count says so;
// the counts themselves live here, each change and its decision taken under one lock.
package guards

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools"
)

// RepeatLimit is how many identical tool calls in a row make the loop stop; the last of them
// is not run.
const RepeatLimit = 3

// Guards are a task's counts, safe for concurrent use. Its lock is a leaf: no method calls
// out while holding it.
type Guards struct {
	// mu guards every field below.
	mu           sync.Mutex
	mistakes     int
	autoApproved int
	editFailures map[string]int
	repeat       repeatState
	limits       config.TaskLimits
	requests     int // model requests made, toward limits.MaxRequests
}

// repeatState follows identical tool calls in a row.
type repeatState struct {
	key   string
	count int
}

// New returns the guards of a task with limits that made requests already.
func New(limits config.TaskLimits, requests int) *Guards {
	return &Guards{limits: limits, requests: requests, editFailures: map[string]int{}}
}

// Mistake counts a model mistake; it also starts the repeat count over (one event, one
// counter).
func (g *Guards) Mistake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mistakes++
	g.repeat = repeatState{}
}

// Mistakes is the number of mistakes in a row.
func (g *Guards) Mistakes() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mistakes
}

// ForgiveMistakes starts the mistake count over (the user let the task go on).
func (g *Guards) ForgiveMistakes() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mistakes = 0
}

// EditFailed counts a failed edit of path and reports whether it was the third in a row,
// which counts as a mistake and starts the file's count over. Failed edits are the mistake
// limit's, so they start the repeat count over too.
func (g *Guards) EditFailed(path string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.repeat = repeatState{}
	g.editFailures[path]++
	if g.editFailures[path] < 3 {
		return false
	}
	g.mistakes++
	g.editFailures[path] = 0
	return true
}

// Succeeded ends the run of mistakes after a call that worked (and, for an edit, the file's
// run of failures).
func (g *Guards) Succeeded(edit bool, path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if edit {
		delete(g.editFailures, path)
	}
	g.mistakes = 0
}

// Restart forgets the mistakes and failed edits in a row (a restore went back before them).
func (g *Guards) Restart() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.editFailures = map[string]int{}
	g.mistakes = 0
}

// AutoApproval counts an auto-approval and reports whether it goes past limit (0: none).
func (g *Guards) AutoApproval(limit int, yolo bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.autoApproved++
	return limit > 0 && g.autoApproved > limit && !yolo
}

// UserApproved starts the count of auto-approvals in a row over: the user answered one.
func (g *Guards) UserApproved() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.autoApproved = 0
}

// Repeated counts a call and reports whether it is the same call a RepeatLimit-th time in a
// row.
func (g *Guards) Repeated(b parse.Block) bool {
	key := callKey(b)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.repeat.key != key {
		g.repeat = repeatState{key: key}
	}
	g.repeat.count++
	return g.repeat.count >= RepeatLimit
}

// ForgetRepeats starts the repeat count over.
func (g *Guards) ForgetRepeats() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.repeat = repeatState{}
}

// Limits returns the task's limits.
func (g *Guards) Limits() config.TaskLimits {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limits
}

// SetLimits replaces the task's limits.
func (g *Guards) SetLimits(l config.TaskLimits) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.limits = l
}

// Requests is the number of model requests made.
func (g *Guards) Requests() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requests
}

// CountRequest counts a model request toward the request limit.
func (g *Guards) CountRequest() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests++
}

// OverLimit says, in words for the user, which limit the next request would go past at cost
// so far; "" when none.
func (g *Guards) OverLimit(cost float64) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	l := g.limits
	switch {
	case l.MaxRequests > 0 && g.requests >= l.MaxRequests:
		return fmt.Sprintf("This task has made %d model requests, its limit of %d.", g.requests, l.MaxRequests)
	case l.MaxCost > 0 && cost >= l.MaxCost:
		return fmt.Sprintf("This task has cost $%.4f, at or over its limit of $%.2f.", cost, l.MaxCost)
	}
	return ""
}

// RaiseReached moves each limit that was reached (at cost so far) by its step: the size set
// in base, else the limit's own size.
func (g *Guards) RaiseReached(base config.TaskLimits, cost float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if l := &g.limits; l.MaxRequests > 0 && g.requests >= l.MaxRequests {
		l.MaxRequests = g.requests + step(base.MaxRequests, l.MaxRequests)
	}
	if l := &g.limits; l.MaxCost > 0 && cost >= l.MaxCost {
		l.MaxCost = cost + step(base.MaxCost, l.MaxCost)
	}
}

// step is how far continuing moves a limit: the size set in the settings, else the limit's
// own size.
func step[N int | float64](setting, current N) N {
	if setting > 0 {
		return setting
	}
	return current
}

// CountRequests counts the requests recorded in a task's messages, its subagents' included
// (a task loaded from history keeps what it already made).
func CountRequests(ms []msg.Message) int {
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

// NoToolRan counts a reply that ran no tool (none, or one cut off) as a mistake; unlike
// Mistake it leaves the repeat count alone: no call was made.
func (g *Guards) NoToolRan() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mistakes++
}

// UnpricedNote is what the user is told at the start of a task whose model's requests cannot
// be priced (model names it, "" when unknown; included: the editor's own models, which have no
// price), when the task has a cost limit: the limit is never silently ignored. "" when there is
// no cost limit.
func (g *Guards) UnpricedNote(model string, included bool) string {
	limit := g.Limits().MaxCost
	switch {
	case limit <= 0:
		return ""
	case included:
		return fmt.Sprintf("The cost limit of $%.2f does not apply to this task: its requests go to the editor's own "+
			"language models, which are included with the editor and have no price. The request limit applies as usual.", limit)
	}
	if model == "" {
		model = "this model"
	}
	return fmt.Sprintf("The cost limit of $%.2f cannot be checked from prices: Cairn does not know the prices of %s. "+
		"Only costs the provider reports count toward it; set api.inputPrice and api.outputPrice (USD per million tokens) to price every request.",
		limit, model)
}
