package agent

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/envdetails"
	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/delegate"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/window"
	"github.com/cairnhq/cairn/core/workspace"
)

// delegateRequests bounds each subtask's own requests; the parent's limits bound the tree.
const delegateRequests = 50

// delegateRunner is one task's delegate.Runner (docs/modes.md, "The orchestrator"): each
// subtask is a subagent (task.NewSub) in the named mode, built from the parent's assembly
// (workspace, host, model) with every tool of a task held to that mode, except the browser,
// subagents and delegate itself, and the parent's auto-approval policy: an approval the
// policy does not give is refused to the subtask's model, which cannot ask.
type delegateRunner struct {
	sub   *subRunner
	modes modeCatalog
}

var _ delegate.Runner = (*delegateRunner)(nil)

// transcriptKinds are the rows of a subtask's chat its parent's row keeps for the user.
var transcriptKinds = lazy.Value[map[msg.Kind]bool]{New: func() map[msg.Kind]bool {
	return map[msg.Kind]bool{
		msg.SayTask: true, msg.SayText: true, msg.SayTool: true, msg.SayCommand: true, msg.SayCommandOutput: true,
		msg.SayError: true, msg.SayInfo: true, msg.SayCompletionResult: true, msg.SayDiffError: true,
	}
}}

// Run implements delegate.Runner.
func (r *delegateRunner) Run(ctx context.Context, env *tools.Env, mode, message string, update func(msg.Subagent)) (delegate.Report, error) {
	if env.Account == nil {
		return delegate.Report{}, fmt.Errorf("%w: the task keeps no account", errNoAccount)
	}
	s := r.sub.a.env.Settings()
	s.CheckpointsEnabled = false
	s.FocusChainEnabled = false
	deps, err := r.deps(s)
	if err != nil {
		return delegate.Report{}, err
	}
	var child *task.Task
	changed := func() {
		st := child.State()
		update(msg.Subagent{Prompt: message, Mode: mode, Status: subStatus(st.Status), Requests: st.Requests,
			Cost: st.Cost, LastTool: child.LastTool()})
	}
	child = task.NewSub(deps, task.SubOptions{Account: env.Account, MaxRequests: delegateRequests, OnChange: changed, Mode: mode})
	res := task.RunSubs(ctx, []*task.Task{child}, []string{message})[0]
	final := msg.Subagent{Prompt: message, Mode: mode, Status: msg.SubagentDone, Requests: res.Requests, Cost: res.Cost,
		LastTool: child.LastTool(), Error: res.Error}
	if !res.Done {
		final.Status = msg.SubagentFailed
	}
	for _, m := range child.Messages() {
		if m.Type == msg.Say && transcriptKinds.Get()[m.Kind] && m.Text != "" {
			final.Transcript = append(final.Transcript, msg.SubagentRow{Type: m.Type, Kind: m.Kind, Text: m.Text})
		}
	}
	update(final)
	if !res.Done {
		return delegate.Report{Text: res.Error}, nil
	}
	return delegate.Report{Done: true, Text: res.Report}, nil
}

// subStatus is a subtask's status in its parent's row.
func subStatus(s task.Status) msg.SubagentStatus {
	switch s {
	case task.StatusCompleted:
		return msg.SubagentDone
	case task.StatusFailed, task.StatusCancelled:
		return msg.SubagentFailed
	}
	return msg.SubagentRunning
}

// deps assembles one subtask.
func (r *delegateRunner) deps(s config.Settings) (task.Deps, error) {
	a := r.sub.a
	ws, err := workspace.New(r.sub.roots...)
	if err != nil {
		return task.Deps{}, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	terminals := shell.NewRegistry()
	terminals.SetSandbox(commandSandbox(s, ws, a.cfg.DataDir))
	catalog := skillCatalog{root: ws.Root(), global: a.cfg.GlobalSkillsDir, settings: a.env.Settings, logger: a.cfg.Logger}
	reg := holdToModes(taskTools(offeredTerminals(s, terminals), nil, webRenderer(s, a.cfg), fetcher(a.cfg), r.sub.mcp, catalog, nil,
		a.cfg.warm(), nil, a.navigator(r.sub.roots, r.sub.host)), r.modes, ws)
	t := &turns{
		a: a, ws: ws, host: r.sub.host, terminals: terminals, reg: reg, settings: s, skills: catalog, modes: r.modes,
		mcp:    r.sub.mcp,
		recent: envdetails.NewTracker(a.cfg.Watch),
		sys:    systemInfo(r.sub.ide, ws.Root()),
		fit:    &window.State{Dedup: s.DedupFileContents},
	}
	return task.Deps{Provider: r.sub.provider, Model: r.sub.model, ModelInfo: r.sub.info, Registry: reg, Host: r.sub.host,
		Files: ws, Settings: s, Turns: t, Commands: t, Modes: r.modes, ModeModels: r.modes.models(s), Logger: a.cfg.Logger}, nil
}
