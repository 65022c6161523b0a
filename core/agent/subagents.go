package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/envdetails"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/mcptool"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/tools/subagents"
	"github.com/cairnhq/cairn/core/tools/webfetch"
	"github.com/cairnhq/cairn/core/window"
	"github.com/cairnhq/cairn/core/workspace"
)

// subRequests bounds each subagent's model requests.
const subRequests = 20

// subRunner is one task's subagents.Runner: it builds each child from the parent's assembly
// (workspace, host, model) with read tools only, and runs them with task.RunSubs.
type subRunner struct {
	a        *Assembler
	roots    []string
	host     tools.Host
	provider llm.Provider
	model    string
	info     llm.ModelInfo
	ide      string
	// mcp is the parent task's MCP hub.
	mcp *mcp.Hub
	// policy is the parent task's policy files.
	policy *policy.Set
}

var _ subagents.Runner = (*subRunner)(nil)

// childTools is what a subagent may use: read tools, web_fetch, the MCP tools that only read,
// and attempt_completion to report. No edits, commands, browser, questions or subagents.
func childTools(render webfetch.Renderer, fetch webfetch.Fetcher, hub *mcp.Hub, warm warmFiles) *tools.Registry {
	r := tools.NewRegistry(
		readfile.New(),
		search.NewIndexed(warm.search),
		listfiles.New(warm.lists),
		codedefs.New(),
		webfetch.New(fetch, render),
	)
	if hub != nil && len(hub.Servers()) > 0 {
		for _, t := range readOnlyMCPTools(hub) {
			r.Add(t)
		}
	}
	r.Add(interact.Completion{})
	return r
}

// childPolicy is a subagent's auto-approval: the parent approved reading when it let the
// subagents start, so reads inside the workspace run; everything else is as the parent's
// settings say, and what they do not approve is refused (a subagent cannot ask).
func childPolicy(p config.AutoApprove) config.AutoApprove {
	on := func(b bool) bool { return p.YOLO || p.Enabled && b }
	return config.AutoApprove{
		Enabled:          true,
		ReadFiles:        true,
		ReadFilesOutside: on(p.ReadFiles && p.ReadFilesOutside),
		Browser:          on(p.Browser),
		MCP:              on(p.MCP),
	}
}

// Run implements subagents.Runner.
func (r *subRunner) Run(ctx context.Context, env *tools.Env, prompts []string, update func([]msg.Subagent)) ([]subagents.Report, error) {
	if env.Account == nil {
		return nil, fmt.Errorf("%w: the task keeps no account", errNoAccount)
	}
	s := r.a.env.Settings()
	s.AutoApprove = childPolicy(s.AutoApprove)
	s.CheckpointsEnabled = false
	s.FocusChainEnabled = false

	w := &watch{prompts: prompts, update: update, children: make([]*task.Task, len(prompts))}
	texts := make([]string, len(prompts))
	for i, p := range prompts {
		deps, err := r.childDeps(s)
		if err != nil {
			w.closeAll(ctx)
			return nil, err
		}
		texts[i] = subagents.ChildPrompt(p)
		w.children[i] = task.NewSub(deps, task.SubOptions{Account: env.Account, MaxRequests: subRequests, OnChange: w.changed})
	}
	results := task.RunSubs(ctx, w.children, texts)
	w.finish(results)
	reports := make([]subagents.Report, len(results))
	for i, res := range results {
		reports[i] = subagents.Report{Done: res.Done, Text: res.Report}
		if !res.Done {
			reports[i].Text = res.Error
		}
	}
	return reports, nil
}

// childDeps assembles one subagent.
func (r *subRunner) childDeps(s config.Settings) (task.Deps, error) {
	ws, err := workspace.New(r.roots...)
	if err != nil {
		return task.Deps{}, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	reg := childTools(webRenderer(s, r.a.cfg), fetcher(r.a.cfg), r.mcp, r.a.cfg.warm())
	t := &turns{
		a: r.a, ws: ws, host: r.host, terminals: shell.NewRegistry(), reg: reg, settings: s,
		recent: envdetails.NewTracker(r.a.cfg.Watch),
		sys:    systemInfo(r.ide, ws.Root()),
		fit:    &window.State{Dedup: s.DedupFileContents},
	}
	return task.Deps{Provider: r.provider, Model: r.model, ModelInfo: r.info, Registry: reg, Host: r.host,
		Files: ws, Settings: s, Turns: t, Commands: t, Logger: r.a.cfg.Logger, Policy: r.policy,
		Telemetry: r.a.cfg.Telemetry}, nil
}

// watch follows the children of one call and reports their state to the row.
type watch struct {
	prompts  []string
	update   func([]msg.Subagent)
	children []*task.Task // set before any child starts, never changed

	// mu serialises the updates and guards final.
	mu    sync.Mutex
	final bool
}

// changed is every child's OnChange.
func (w *watch) changed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.final {
		return
	}
	out := make([]msg.Subagent, len(w.children))
	for i, c := range w.children {
		st := c.State()
		out[i] = msg.Subagent{Prompt: w.prompts[i], Status: subStatus(st.Status), Requests: st.Requests, Cost: st.Cost,
			LastTool: c.LastTool()}
	}
	w.update(out)
}

// finish shows how every child ended; later changes are not shown.
func (w *watch) finish(results []task.SubResult) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.final = true
	out := make([]msg.Subagent, len(results))
	for i, res := range results {
		status := msg.SubagentDone
		if !res.Done {
			status = msg.SubagentFailed
		}
		out[i] = msg.Subagent{Prompt: w.prompts[i], Status: status, Requests: res.Requests, Cost: res.Cost,
			LastTool: w.children[i].LastTool(), Error: res.Error}
	}
	w.update(out)
}

// closeAll releases the children built so far when one could not be.
func (w *watch) closeAll(ctx context.Context) {
	for _, c := range w.children {
		if c != nil {
			c.Close(context.WithoutCancel(ctx))
		}
	}
}

// readOnlyMCPTools are the MCP tools a subagent may use.
func readOnlyMCPTools(hub *mcp.Hub) []tools.Tool { return mcptool.ReadOnly(hub) }
