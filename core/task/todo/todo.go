// Package todo owns a task's todo list as the model keeps it (the focus chain): storing the
// list the model sends with a tool call, the user's edit of it, and when the reminder to keep
// it goes with a request: the first turn, after a PLAN→ACT switch, after the user edited the
// list, and every few requests without an update.
package todo

import (
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
)

// DefaultInterval is how many requests may go without an update of the list before the
// reminder goes again, when the settings name no interval.
const DefaultInterval = 6

// Deps is what the owner needs from the task. Every func is called with no lock of this owner
// held.
type Deps struct {
	// List returns the list as the task's header holds it; SetList stores a new one and says
	// whether it differs from the one before.
	List    func() string
	SetList func(list string) (changed bool)
	// Say posts a row in the task's chat.
	Say func(kind msg.Kind, text string, payload msg.Payload, partial bool) int
	// Publish publishes the task's state (its header shows the list).
	Publish func()
}

// Owner is a task's todo list and when its reminder is due.
type Owner struct {
	deps Deps

	// mu guards requestsSince, edited and planToAct.
	mu            sync.Mutex
	requestsSince int  // requests since the list was last updated
	edited        bool // the user edited the list since the last reminder
	planToAct     bool // the task switched from PLAN to ACT since the last reminder
}

// New returns the todo list of a task.
func New(deps Deps) *Owner { return &Owner{deps: deps} }

// Set stores a list the model sent with a tool call (an empty one is ignored): the count of
// requests without an update starts over, and a changed list is shown as a row.
func (o *Owner) Set(list string) {
	if strings.TrimSpace(list) == "" {
		return
	}
	changed := o.deps.SetList(list)
	o.mu.Lock()
	o.requestsSince = 0
	o.mu.Unlock()
	o.deps.Publish()
	if changed {
		o.deps.Say(msg.SayTaskProgress, list, &msg.Progress{Markdown: list}, false)
	}
}

// Edit stores the user's edit of the list; the model hears of it with the next request.
func (o *Owner) Edit(markdown string) {
	o.deps.SetList(markdown)
	o.mu.Lock()
	o.edited = true
	o.mu.Unlock()
	o.deps.Publish()
}

// SwitchedToAct notes a PLAN→ACT switch: the reminder goes with the next request.
func (o *Owner) SwitchedToAct() {
	o.mu.Lock()
	o.planToAct = true
	o.mu.Unlock()
}

// Reminder counts a request and returns the todo-list instructions when they are due (none
// when the list is not enabled); interval <= 0 means DefaultInterval.
func (o *Owner) Reminder(first, enabled bool, interval int) []llm.Content {
	if !enabled {
		return nil
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	due, edited := o.next(first, interval)
	if !due {
		return nil
	}
	list := o.deps.List()
	text := prompt.FocusChainReminder(list, list == "")
	if edited {
		text = "The user edited the todo list. The current list is:\n" + list + "\n\n" + text
	}
	return []llm.Content{llm.Text(text)}
}

// next counts a request and reports whether the reminder goes with it, and whether the user
// edited the list; a reminder given starts the count over.
func (o *Owner) next(first bool, interval int) (due, edited bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requestsSince++
	due = first || o.planToAct || o.edited || o.requestsSince > interval
	if !due {
		return false, false
	}
	edited = o.edited
	o.requestsSince, o.edited, o.planToAct = 0, false, false
	return true, edited
}
