package task

import (
	"context"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task/toolcall"
	"github.com/cairnhq/cairn/core/tools"
)

// A run of the loop (runLoop) and what it gives its tools and their calls: the environment of
// a call (env), the modes it may switch to (modeSwitch), the account its subagents charge
// (account), and what a call reaches of the run through core/task/toolcall's interfaces
// (toolDeps, callSide). The UI through which a tool asks and tells the chat is toolcall's.

// runLoop is one run of the request loop (loop.go) with its steps: the requests (loop.go),
// the tool calls (run_tool.go, through core/task/toolcall), the guard rails (guard.go), the
// backoff (backoff.go). It lives on the run's goroutine; what it shares, it shares through the
// task's parts, each with its own synchronisation, and it reaches the Task only as its
// orchestrator (parts.task).
type runLoop struct {
	*parts
}

// mode is the task's current mode.
func (l *runLoop) mode() string { return l.conv.Meta().Mode }

// env builds the tool environment of a call, with a UI of its own (toolcall.Env).
func (l *runLoop) env() *tools.Env { return toolcall.Env(l.toolDeps()) }

// envWith builds the tool environment of a call whose UI is ui.
func (l *runLoop) envWith(ui tools.UI) *tools.Env {
	s := l.cfg.Settings()
	scratch := scratchDir(l.conv.Dir())
	mode := l.mode()
	return &tools.Env{
		Files:   l.deps.Files,
		Host:    l.deps.Host,
		UI:      ui,
		Mode:    mode,
		Scratch: scratch,
		Account: account{l},
		Modes:   modeSwitch{l},
		Settings: tools.Settings{
			OutputLineLimit:   s.OutputLineLimit,
			OutputByteLimit:   s.OutputByteLimit,
			ReadFileLineLimit: s.ReadFileLineLimit,
			FullEditResults:   s.FullEditResults,
			SupportsImages:    l.cfg.For(mode).Info.SupportsImages,
		},
	}
}

// modeSwitch is how switch_mode changes the task's mode (tools.ModeSwitcher).
type modeSwitch struct{ l *runLoop }

func (m modeSwitch) Current() string { return m.l.mode() }

func (m modeSwitch) Name(slug string) (string, bool) {
	switch slug {
	case ModeAct:
		return "Act", true
	case ModePlan:
		return "Plan", true
	}
	if m.l.deps.Modes == nil {
		return "", false
	}
	return m.l.deps.Modes.Name(slug)
}

func (m modeSwitch) Switch(slug string) error { return m.l.task.SetMode(slug) }

// countRequest counts a model request toward the task's request limit (and the parent's, for
// a subagent).
func (l *runLoop) countRequest() {
	l.guards.CountRequest()
	l.state.Publish()
	if l.sub != nil {
		l.sub.Requested()
	}
}

// account is a task's tools.Account: what its subagents charge to it.
type account struct{ l *runLoop }

func (a account) AddRequest() { a.l.countRequest() }

func (a account) AddUsage(u llm.Usage, cost float64) {
	a.l.conv.AddUsage(u, cost, false)
	a.l.state.Publish()
}

func (a account) Exhausted() string {
	return a.l.guards.OverLimit(a.l.conv.Meta().Cost)
}

// toolDeps is what a tool call of this run reaches: its policy is the policy files with the
// allow rules of the task's session under them, as they are when the call starts.
func (l *runLoop) toolDeps() toolcall.Deps {
	meta := l.conv.Meta()
	d := toolcall.Deps{
		Registry: l.deps.Registry, Task: callSide{l}, Chat: l.conv, Guards: l.guards, Hooks: l.hooks,
		Checkpoints: l.cps, Background: l.bg, Todo: l.todo,
		Policy:   l.deps.Policy.WithSession(meta.ID, meta.Workspace, meta.SessionRules),
		Recorder: recorderOf(l.deps), Now: l.deps.Now, Bug: l.bugs.report,
	}
	if l.sub != nil {
		d.Sub = l.sub
	}
	return d
}

// callSide is the run as a tool call sees it (toolcall.Task).
type callSide struct{ l *runLoop }

func (c callSide) Planning() bool { return c.l.mode() == ModePlan }

func (c callSide) Native() bool { return c.l.cfg.For(c.l.mode()).Info.NativeTools() }

func (c callSide) Settings() config.Settings { return *c.l.cfg.Settings() }

func (c callSide) Env(ui tools.UI) *tools.Env { return c.l.envWith(ui) }

func (c callSide) Ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, why *msg.Why) (tools.Answer, int, error) {
	return c.l.task.ask(ctx, kind, text, payload, why)
}

func (c callSide) ExpandUser(ctx context.Context, text string) string {
	return c.l.deps.Turns.ExpandUser(ctx, text)
}

func (c callSide) Feedback(ctx context.Context, text string) llm.Content {
	return llm.Text(feedbackOpen + c.l.deps.Turns.ExpandUser(ctx, text) + "\n</feedback>")
}

func (c callSide) ToolRan(ctx context.Context, read, changed []string) {
	c.l.deps.Turns.ToolRan(ctx, read, changed)
}

// Condensed records a condensed summary as the start of the history the model sees, after the
// PreCompact hooks.
func (c callSide) Condensed(ctx context.Context, summary string) {
	l := c.l
	l.hooks.Compact(ctx, hooks.CompactCondense, l.conv.Meta().ContextTokens, len(l.conv.History()))
	l.conv.MarkCondensed(summary)
}
