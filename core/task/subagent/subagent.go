// Package subagent owns what makes a task a subagent (docs/architecture.md, "Subagents"): the
// tie to its parent (whose account it charges, whose limits stop it), its own bound on
// requests, the tool it used last (its status in the parent's chat) and how it ended.
package subagent

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// Options tie a subagent to its parent.
type Options struct {
	// Account is the parent's (required).
	Account tools.Account
	// MaxRequests bounds the subagent's own requests (0: DefaultRequests).
	MaxRequests int
	// OnChange is told, without any lock held and from the subagent's goroutine, that its
	// state changed: a request started or ended, or a tool is about to run. Nil: nobody is.
	OnChange func()
	// Mode is the mode the subagent runs in ("": ACT); a delegated subtask's (docs/modes.md).
	Mode string
}

// DefaultRequests bounds a subagent's requests when Options leave it open.
const DefaultRequests = 20

// Result is how a subagent ended.
type Result struct {
	// Done is set when the subagent finished with attempt_completion; Report is then its
	// result. Otherwise Error says what stopped it.
	Done     bool
	Report   string
	Error    string
	Requests int
	Cost     float64
}

// Owner is a task's part as a subagent. A task that is not a subagent has none (nil).
type Owner struct {
	opts Options

	// mu guards lastTool.
	mu       sync.Mutex
	lastTool string // the tool used last, with its argument
}

// New returns the subagent part of a task tied to its parent by opts.
func New(opts Options) *Owner {
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultRequests
	}
	return &Owner{opts: opts}
}

// MaxRequests is the subagent's own bound on requests.
func (o *Owner) MaxRequests() int { return o.opts.MaxRequests }

// changed tells the subagent's observer that something changed.
func (o *Owner) changed() {
	if o.opts.OnChange != nil {
		o.opts.OnChange()
	}
}

// Requested charges a request to the parent.
func (o *Owner) Requested() {
	o.opts.Account.AddRequest()
	o.changed()
}

// Used charges a request's usage and cost to the parent.
func (o *Owner) Used(u llm.Usage, cost float64) {
	o.opts.Account.AddUsage(u, cost)
	o.changed()
}

// Limit says why the subagent must stop before its next request, having made requests of
// its bound limit ("" when it may go on).
func (o *Owner) Limit(requests, limit int) string {
	if limit > 0 && requests >= limit {
		return fmt.Sprintf("The subagent stopped at its limit of %d requests without reporting.", limit)
	}
	if why := o.opts.Account.Exhausted(); why != "" {
		return "The subagent stopped: the parent task reached its limit. " + why
	}
	return ""
}

// NoteTool records the tool the subagent is about to run.
func (o *Owner) NoteTool(spec tools.Spec, call tools.Call) {
	what := spec.Name
	if arg := strings.TrimSpace(call.Params[spec.ArgParam]); spec.ArgParam != "" && arg != "" {
		if len(arg) > 80 {
			arg = strings.ToValidUTF8(arg[:80], "") + "…"
		}
		what += " " + arg
	}
	o.mu.Lock()
	o.lastTool = what
	o.mu.Unlock()
	o.changed()
}

// LastTool returns the tool the subagent used last with its main argument ("" before any).
func (o *Owner) LastTool() string {
	if o == nil {
		return ""
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastTool
}

// Answer is how a subagent answers its own questions: a completion is accepted, every other
// question refused.
func Answer(kind msg.Kind) tools.Answer {
	if kind == msg.AskCompletionResult {
		return tools.Answer{Approved: true}
	}
	return tools.Answer{}
}

// Outcome reads how a subagent that has stopped ended from its rows ms: completed or
// cancelled says how its run ended; requests and cost are what it spent.
func Outcome(ms []msg.Message, completed, cancelled bool, requests int, cost float64) Result {
	r := Result{Requests: requests, Cost: cost}
	if completed {
		for i := len(ms) - 1; i >= 0; i-- {
			if m := ms[i]; m.Type == msg.Say && m.Kind == msg.SayCompletionResult {
				r.Done, r.Report = true, m.Text
				return r
			}
		}
	}
	r.Error = "it stopped before it reported"
	if cancelled {
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
