package task

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/event"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/asks"
	"github.com/cairnhq/cairn/core/task/background"
	"github.com/cairnhq/cairn/core/task/checkpoints"
	"github.com/cairnhq/cairn/core/task/conversation"
	"github.com/cairnhq/cairn/core/task/guards"
	"github.com/cairnhq/cairn/core/task/hookpoints"
	"github.com/cairnhq/cairn/core/task/msgqueue"
	"github.com/cairnhq/cairn/core/task/runstate"
	"github.com/cairnhq/cairn/core/task/settings"
	"github.com/cairnhq/cairn/core/task/subagent"
	"github.com/cairnhq/cairn/core/task/todo"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
)

// Status is what the task is doing (core/task/runstate owns it).
type Status = runstate.Status

// Task statuses.
const (
	StatusIdle      = runstate.Idle
	StatusRunning   = runstate.Running
	StatusWaiting   = runstate.Waiting
	StatusCompleted = runstate.Completed
	StatusCancelled = runstate.Cancelled
	StatusFailed    = runstate.Failed
)

// Modes.
const (
	ModeAct  = "act"
	ModePlan = settings.PlanMode
)

// State is the task's header.
type State struct {
	ID            string
	Status        Status
	Mode          string
	Title         string
	TokensIn      int64
	TokensOut     int64
	CacheReads    int64
	CacheWrites   int64
	Cost          float64
	ContextTokens int64
	ContextWindow int64
	FocusChain    string
	OpenAsk       int // -1 when none
	Model         string
	MessageCount  int
	// Requests is how many model requests the task made; Limits caps them and the cost.
	Requests int
	Limits   config.TaskLimits
	// PricesKnown is false when requests cannot be priced (a cost limit then counts only
	// costs the provider reports).
	PricesKnown bool
	// Queued are the messages waiting for the current step to end (queue.go).
	Queued []Queued
	// AutoApprove is the policy the task runs under; OwnSettings says the task has settings
	// of its own (config.Overrides): its model and policy change for it alone.
	AutoApprove config.AutoApprove
	OwnSettings bool
	// Included: the model is one of the editor's own (vscode-lm), its requests have no price;
	// ModelLabel names it for people ("vendor · family"), "" when Model does.
	Included   bool
	ModelLabel string
	// Sandbox is how the task's commands run (README "Security").
	Sandbox Sandbox
}

// Sandbox is how a task's commands run: the machine's command sandbox, and whether the task's
// settings turn it off (sandboxDisabled, --no-sandbox) or let auto-approved commands use the
// network (sandboxNetwork, --network). Off wins; else, without a sandbox, every command asks.
type Sandbox struct {
	sandbox.Status
	Off, Network bool
	// OffBy names what turned the sandbox off: "--no-sandbox" (the task's own setting) or
	// "sandboxDisabled setting"; "" when on.
	OffBy string
}

// sandboxState is how a task's commands run: what the machine offers (st), the task's
// settings s and its own overrides.
func sandboxState(st sandbox.Status, s config.Settings, own *config.Overrides) Sandbox {
	sb := Sandbox{Status: st, Off: s.SandboxOff, Network: s.SandboxNetwork}
	switch {
	case !sb.Off:
	case own != nil && own.NoSandbox != nil && *own.NoSandbox:
		sb.OffBy = "--no-sandbox"
	default:
		sb.OffBy = "sandboxDisabled setting"
	}
	return sb
}

// EventKind tells which field of Event is set.
type EventKind int

// Event kinds. Appended events are merged for slow subscribers; all are delivered.
const (
	EventAdded EventKind = iota + 1
	EventAppended
	EventUpdated
	EventState
	EventFinalized
	// EventReset says the message list was cut (a checkpoint restore): subscribers start over
	// from a fresh snapshot.
	EventReset
)

// Event is one change a subscriber applies to its copy of the task.
type Event struct {
	Kind    EventKind
	Message msg.Message // Added, Updated
	Index   int         // Appended
	Delta   string      // Appended
	State   State       // State

	// merged holds Delta while deltas merge into it in a subscriber's queue, so a subscriber
	// that falls behind a fast stream costs one growing buffer, not a copy of the whole
	// merged text per chunk. Strings it handed out stay valid: a Builder only appends.
	merged *strings.Builder
}

func mergeEvents(prev, next Event) (Event, bool) {
	if prev.Kind == EventAppended && next.Kind == EventAppended && prev.Index == next.Index {
		if prev.merged == nil {
			prev.merged = &strings.Builder{}
			prev.merged.Grow(2 * (len(prev.Delta) + len(next.Delta)))
			prev.merged.WriteString(prev.Delta)
		}
		prev.merged.WriteString(next.Delta)
		prev.Delta = prev.merged.String()
		return prev, true
	}
	return prev, false
}

// Deps is everything a task needs from the outside, built by core/agent.
type Deps struct {
	Provider  llm.Provider
	Model     string
	ModelInfo llm.ModelInfo
	// PlanModel, when set, answers the requests made in PLAN mode, with PlanModelInfo
	// (models.go); Model answers the rest.
	PlanModel     string
	PlanModelInfo llm.ModelInfo
	// ModeModels, when set, gives the model and reasoning effort of a mode that names its own
	// (docs/modes.md, "A mode's model"); nil: every custom mode answers with the ACT model.
	ModeModels ModeModels
	Registry   *tools.Registry
	Host       tools.Host
	Files      tools.Files
	Settings   config.Settings
	// Turns builds the parts of each turn that come from the world around the loop (nil: a
	// bare loop with no prompt, environment details, expansion or checkpoints; tests).
	Turns Turns
	// Models resolves the models of settings (nil: the task's models never change); a task
	// with settings of its own uses it when the user picks another model for it.
	Models func(s config.Settings) *Models
	// Now and Sleep are the clock, replaceable in tests.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// HostID names the editor serving the task ("" for the machine's own host).
	HostID string
	// Logger receives bug reports and persistence failures (nil: discarded).
	Logger *slog.Logger
	// Hooks runs the user's hook scripts at points of the task's life (nil: none).
	Hooks Hooks
	// Sandbox is what sandbox.Probe found on this machine, for the task's header (the zero
	// value: no sandbox, no reason given).
	Sandbox sandbox.Status
	// Commands are the commands the task's tools may leave running in the background
	// (background.go; nil: its tools leave none).
	Commands BackgroundCommands
	// Policy is the workspace's policy files (core/policy; nil: the settings alone decide
	// approvals).
	Policy *policy.Set
	// Refused is what the policy files' switches refused of the task's settings when it was
	// assembled (core/agent; docs/settings.md, "Policy files"): a new task's chat says each,
	// once, as a note under the task's first row.
	Refused []policy.Refusal
	// Telemetry receives the task's runs, requests, tool calls and approvals (core/telemetry;
	// nil: nothing is recorded).
	Telemetry telemetry.Recorder
	// Modes are the modes besides ACT and PLAN the task may switch to (docs/modes.md; nil:
	// none).
	Modes Modes
}

// Modes is the catalogue of a task's custom modes (core/modes, through core/agent). Name is
// called without a task lock held and may read files.
type Modes interface {
	// Name returns the display name of a mode besides ACT and PLAN; false when there is none.
	Name(slug string) (string, bool)
}

// customMode reports whether slug is one of the task's modes besides ACT and PLAN.
func customMode(modes Modes, slug string) bool {
	if modes == nil {
		return false
	}
	_, ok := modes.Name(slug)
	return ok
}

// Turns builds, for each turn, what depends on the world around the loop: the workspace, the
// editor, rules, checkpoints. core/agent implements it; every method is called on the task's
// goroutine, one at a time, except Close and Checkpoint: a run's first checkpoint is taken in
// the background while the other methods go on (core/task/checkpoints).
type Turns interface {
	// SystemPrompt renders the system prompt for a mode, whose model is described by model
	// (its tool format and whether it sees images). history is the task's whole API
	// conversation so far, neither condensed nor projected (rules that apply only to some
	// files look at the paths it touched); it is a copy the callee may keep but not change.
	SystemPrompt(mode string, model llm.ModelInfo, history []llm.Message) string
	// EnvDetails renders <environment_details> for a turn.
	EnvDetails(ctx context.Context, r EnvRequest) string
	// ExpandUser expands mentions and slash commands in user text.
	ExpandUser(ctx context.Context, text string) string
	// Project fits the API history into a context window of contextWindow tokens (0:
	// unknown), the window of the model the request goes to (a projection of it).
	Project(history []llm.Message, lastTokens int64, contextWindow int) []llm.Message
	// ContextOverflow is called when the provider rejected a request as too long for the
	// window, before the one silent retry, so the next Project can shrink.
	ContextOverflow()
	// Checkpoint snapshots the workspace at the first request and after tools that may have
	// changed files. A hash is shown as a checkpoint_created row, an error as an error row; ""
	// with nil shows nothing (checkpoints off, or a failure already reported).
	Checkpoint(ctx context.Context) (hash string, err error)
	// ToolRan is told the files (absolute) a tool read or changed, right after it ran.
	ToolRan(ctx context.Context, read, changed []string)
	// Close releases what the task held (commands left running, watchers). It is called once,
	// when the task is closed.
	Close() error
}

// bareTurns is the Turns of a task without an agent around it.
type bareTurns struct{}

func (bareTurns) SystemPrompt(string, llm.ModelInfo, []llm.Message) string { return "" }
func (bareTurns) EnvDetails(context.Context, EnvRequest) string            { return "" }
func (bareTurns) ExpandUser(_ context.Context, text string) string         { return text }
func (bareTurns) Project(h []llm.Message, _ int64, _ int) []llm.Message    { return h }
func (bareTurns) ContextOverflow()                                         {}
func (bareTurns) Checkpoint(context.Context) (string, error)               { return "", nil }
func (bareTurns) ToolRan(context.Context, []string, []string)              {}
func (bareTurns) Close() error                                             { return nil }

// EnvRequest says what environment details a turn needs.
type EnvRequest struct {
	First         bool
	Mode          string
	ContextTokens int64
	ContextWindow int64
}

// parts are what a task is made of: its identity, what it was built with and its owners. The
// Task and each run of its loop (runLoop) hold the same parts, set before the task starts and
// never replaced; every owner has its own synchronisation (docs/task-runtime.md). parts has no
// methods: what uses them is the Task's orchestration or a run's steps.
type parts struct {
	id   string
	deps Deps
	// sub is set, before the task starts and never changed, when the task is a subagent
	// (sub.go, core/task/subagent).
	sub    *subagent.Owner
	broker *event.Broker[Event]
	// cfg holds the task's current settings and models (core/task/settings): read without a
	// lock; its writers are serialised by the run state (runstate.Owner.Change).
	cfg *settings.Owner

	conv   *conversation.Conversation // the chat, the API history, the header and their journal
	guards *guards.Guards             // mistakes, auto-approvals, repeats, limits and requests
	queue  *msgqueue.Queue            // messages sent while a run is active
	hooks  *hookpoints.Points         // the user's hooks at the task's points, and what they added
	bg     *background.Owner          // the commands left running (their registry keeps them)
	asks   *asks.Owner                // the open question
	todo   *todo.Owner                // the todo list and when its reminder is due
	cps    *checkpoints.Owner         // checkpoint rows, the run's first checkpoint, changes at a completion
	retry  *retrySlot                 // the backoff wait before a retry (state.go)
	bugs   bugReporter                // recovered panics, to the log and the chat
	// state is what the task runs now and its status, and the decisions taken on them
	// (core/task/runstate); its Publish publishes the task's header.
	state *runstate.Owner

	// task is the orchestrator the parts belong to: a run's steps ask the user and take the
	// queue through it.
	task orchestrator
}

// orchestrator is what a run's steps and a tool's UI need of the task around them: the
// decisions that look at the task's status, its open question and its queue at once, which
// the run state takes (ask.go).
type orchestrator interface {
	// ask posts a question and waits for its answer or ctx; it returns the question's row
	// (-1 for a subagent, which is never asked). why says why an approval is asked (nil for
	// other questions).
	ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, why *msg.Why) (tools.Answer, int, error)
	// takeQueued empties the queue and returns its messages as one.
	takeQueued() (msgqueue.Joined, bool)
	// SetMode switches the task's mode (switch_mode; docs/modes.md).
	SetMode(mode string) error
}

// conductor is the orchestrator a run's steps reach the task through (parts.task; ask.go).
type conductor struct{ p *parts }

// Task is one conversation, and the orchestrator of its parts: it says when each owner is
// used and what a run is made of (run.go), and fires hooks once no lock is held. It holds no
// state of its own: what it runs now and its status are the run state's
// (core/task/runstate), which takes the decisions on them. The runtime's concurrency rules
// are in run.go.
type Task struct {
	*parts
}

// others are the task's owners as the run state's decisions consult them (runstate.Task);
// their methods are called under the run state's lock (run.go, ask.go, task.go).
type others struct{ p *parts }

func newTask(meta store.Meta, deps Deps, log journal) *Task {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Sleep == nil {
		deps.Sleep = sleepCtx
	}
	if deps.Turns == nil {
		deps.Turns = bareTurns{}
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if meta.Mode == "" {
		meta.Mode = ModeAct
	}
	p := &parts{
		id:     meta.ID,
		deps:   deps,
		broker: event.New(mergeEvents),
		guards: guards.New(deps.Settings.TaskLimits, 0),
		queue:  &msgqueue.Queue{},
		asks:   &asks.Owner{},
		retry:  &retrySlot{},
		cfg:    settings.New(deps.Settings, modelsOf(deps), deps.ModeModels),
	}
	t := &Task{parts: p}
	p.task = conductor{p}
	p.state = runstate.New(others{p})
	p.conv = conversation.New(meta, log, deps.Now, events{p.broker}, func(err error) {
		deps.Logger.Error("task: persistence failed; the task pauses", "task", p.id, "err", err)
	})
	p.bugs = bugReporter{id: p.id, log: deps.Logger, conv: p.conv}
	p.bg = background.New(deps.Commands, p.conv.Say, func(err error) {
		deps.Logger.Warn("task: stopping background commands", "task", p.id, "err", err)
	})
	p.hooks = hookpoints.New(deps.Hooks, p.id, p.conv.Say)
	p.todo = todo.New(todo.Deps{
		List: func() string { return p.conv.Meta().FocusChain },
		SetList: func(list string) (changed bool) {
			p.conv.SetMeta(func(m *store.Meta) { changed, m.FocusChain = m.FocusChain != list, list })
			return changed
		},
		Say:     p.conv.Say,
		Publish: p.state.Publish,
	})
	p.cps = checkpoints.New(checkpoints.Deps{
		Take:         deps.Turns.Checkpoint,
		Say:          p.conv.Say,
		NextAPIIndex: func() int { return len(p.conv.History()) + 1 },
		Messages:     p.conv.Messages,
		Bug:          p.bugs.report,
		Stuck: func(err error) {
			deps.Logger.Error("task: the first checkpoint did not stop", "task", p.id, "err", err)
		},
		StopWait: runstate.CancelWait,
	})
	return t
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// HostID returns the id of the host serving the task.
func (t *Task) HostID() string { return t.deps.HostID }

// ID returns the task id.
func (t *Task) ID() string { return t.id }

// Subscribe returns the current messages and state and a subscription to every later change.
// The caller must Close the subscription.
func (t *Task) Subscribe() ([]msg.Message, State, *event.Subscription[Event]) {
	var msgs []msg.Message
	var st State
	var sub *event.Subscription[Event]
	// The snapshot and the subscription are taken under the conversation's lock, under which
	// its changes are published, and the run state's, under which the header is: no change
	// falls between them.
	t.state.Read(func(status Status) {
		t.conv.Read(func(ms []msg.Message, _ []llm.Message, _ *store.Meta) {
			msgs = slices.Clone(ms)
			sub = t.broker.Subscribe()
		})
		st = header(t.parts, status)
	})
	return msgs, st, sub
}

// State returns the task's header state.
func (t *Task) State() State {
	var st State
	t.state.Read(func(status Status) { st = header(t.parts, status) })
	return st
}

// Messages returns a copy of the message list.
func (t *Task) Messages() []msg.Message {
	return t.conv.Messages()
}

// API returns a copy of the API history.
func (t *Task) API() []llm.Message {
	return t.conv.History()
}

// header is the task's header as it stands with status (the run state's lock is held, which
// orders the headers published).
func header(p *parts, status Status) State {
	var meta store.Meta
	var n int
	p.conv.Read(func(ms []msg.Message, _ []llm.Message, m *store.Meta) { meta, n = *m, len(ms) })
	m := p.cfg.For(meta.Mode)
	return State{
		ID: p.id, Status: status, Mode: meta.Mode, Title: meta.Title,
		TokensIn: meta.TokensIn, TokensOut: meta.TokensOut, CacheReads: meta.CacheReads,
		CacheWrites: meta.CacheWrites, Cost: meta.Cost, ContextTokens: meta.ContextTokens,
		ContextWindow: int64(m.Info.ContextWindow), FocusChain: meta.FocusChain,
		OpenAsk: p.asks.Index(), Model: m.Name, MessageCount: n,
		Requests: p.guards.Requests(), Limits: p.guards.Limits(), PricesKnown: m.Info.InputPrice > 0 || m.Info.OutputPrice > 0,
		Queued: p.queue.List(), AutoApprove: p.cfg.Settings().AutoApprove, OwnSettings: meta.Overrides != nil,
		Included: m.Info.Included, ModelLabel: m.Info.Label,
		Sandbox: sandboxState(p.deps.Sandbox, *p.cfg.Settings(), meta.Overrides),
	}
}

// Publish publishes the task's header with status (runstate.Task).
func (o others) Publish(status Status) {
	o.p.broker.Publish(Event{Kind: EventState, State: header(o.p, status)}, false)
}

// Recover reports a panic on a goroutine of the run state (runstate.Task); it is deferred
// there, so it calls recover itself.
func (o others) Recover(where string) {
	if r := recover(); r != nil {
		o.p.bugs.report(where, r)
	}
}

// Host returns the host the task works through (the daemon routes editor events by it).
func (t *Task) Host() tools.Host { return t.deps.Host }

// Mode returns the current mode.
func (t *Task) Mode() string {
	return t.conv.Meta().Mode
}

// UpdateFocusChain stores the user's edit of the todo list; the model hears of it next turn.
func (t *Task) UpdateFocusChain(markdown string) {
	t.todo.Edit(markdown)
}

// BackgroundCommands are the commands a task's tools may leave running (Deps.Commands).
type BackgroundCommands = background.Commands

// EndedCommand is one command that ended or was stopped.
type EndedCommand = background.Ended

// Queued is a message waiting for the current step to end.
type Queued = msgqueue.Item

// Models are the models a task's requests go to (core/task/settings owns them).
type Models = settings.Models

// ModeModels finds a custom mode's own model and reasoning effort (core/task/settings).
type ModeModels = settings.ModeModels

// ModeModel is a custom mode's own model and reasoning effort (core/task/settings).
type ModeModel = settings.Model

// modelsOf returns the models deps start the task with.
func modelsOf(d Deps) *Models {
	return &Models{Provider: d.Provider, Act: d.Model, ActInfo: d.ModelInfo, Plan: d.PlanModel, PlanInfo: d.PlanModelInfo}
}

// Persistence is the conversation's (core/task/conversation): every record goes through its
// journal, and a write that fails stops the writes and is kept. The task pauses at its next
// step until the records are on disk again.

// journal is where a task's records go: *store.Log, or a failing one in tests.
type journal = conversation.Journal

// events publishes the conversation's changes to the task's subscribers (conversation.Observer).
type events struct{ b *event.Broker[Event] }

func (e events) Added(m msg.Message) { e.b.Publish(Event{Kind: EventAdded, Message: m}, false) }
func (e events) Appended(i int, delta string) {
	e.b.Publish(Event{Kind: EventAppended, Index: i, Delta: delta}, true)
}
func (e events) Finalized(i int)       { e.b.Publish(Event{Kind: EventFinalized, Index: i}, false) }
func (e events) Updated(m msg.Message) { e.b.Publish(Event{Kind: EventUpdated, Message: m}, false) }
func (e events) Reset()                { e.b.Publish(Event{Kind: EventReset}, false) }

// bugReporter turns a recovered panic into a logged bug report and an error row
// (docs/conventions.md, "Bugs are reported and survived").
type bugReporter struct {
	id   string
	log  *slog.Logger
	conv *conversation.Conversation
}

// report logs a recovered panic with its stack and tells the user in one row.
func (b bugReporter) report(where string, r any) {
	b.log.Error("bug: panic", "task", b.id, "in", where, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	b.conv.Say(msg.SayError, "Cairn hit an internal error in "+where+" ("+fmt.Sprint(r)+"). "+
		"This is a bug; the details are in the Cairn daemon log. The rest of Cairn keeps working.", nil, false)
}
