package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/envdetails"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/mentions"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/browser"
	"github.com/cairnhq/cairn/core/tools/mcptool"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/window"
	"github.com/cairnhq/cairn/core/workspace"
)

// turns is one task's task.Turns.
type turns struct {
	a         *Assembler
	ws        *workspace.Workspace
	host      tools.Host
	editor    tools.Editor // nil without an editor
	terminals *shell.Registry
	reg       *tools.Registry
	settings  config.Settings
	recent    *envdetails.Tracker
	sys       prompt.SystemInfo
	// fit is the context-window state (the loop calls Project and ContextOverflow on its one
	// goroutine).
	fit         *window.State
	checkpoints *checkpoints // nil: off
	// browser is the task's browser session (nil: browser_action is not offered).
	browser *browser.Session
	// skills finds the workspace's skills for the prompt and use_skill.
	skills skillCatalog
	// modes are the task's modes, for the prompt's MODE section.
	modes modeCatalog
	// mcpSettled is set once the first request's wait for the MCP servers ended (awaitMCP).
	mcpSettled bool
	// mcp is the task's MCP hub (taskHub; nil: no MCP servers); ownMCP is set when it is the
	// task's own, closed with it.
	mcp    *mcp.Hub
	ownMCP bool
}

var (
	_ task.Turns              = (*turns)(nil)
	_ task.BackgroundCommands = (*turns)(nil)
)

// EndedCommands reports the task's background commands that ended (task.BackgroundCommands).
func (t *turns) EndedCommands() []task.EndedCommand {
	return endedCommands(t.terminals.Ended())
}

// StopCommands stops the task's commands still running, or releases those in the editor's
// terminal (task.BackgroundCommands).
func (t *turns) StopCommands(ctx context.Context) ([]task.EndedCommand, error) {
	stopped, err := t.terminals.StopAll(ctx)
	return endedCommands(stopped), err
}

// StopCommand stops one of the task's commands (task.BackgroundCommands): the chat's Stop.
func (t *turns) StopCommand(ctx context.Context, id int) (task.EndedCommand, error) {
	tr := t.terminals.Get(id)
	if tr == nil {
		return task.EndedCommand{}, task.ErrNoCommand
	}
	code, err := t.terminals.Stop(ctx, tr)
	if err != nil {
		return task.EndedCommand{}, fmt.Errorf("agent: %w", err)
	}
	return task.EndedCommand{ID: id, Command: tr.Command(), Code: code}, nil
}

func endedCommands(in []shell.Stopped) []task.EndedCommand {
	out := make([]task.EndedCommand, 0, len(in))
	for _, s := range in {
		out = append(out, task.EndedCommand{ID: s.ID, Command: s.Command, Code: s.Code, Released: s.Released})
	}
	return out
}

// SystemPrompt reads the rules again for every request: which apply depends on the files the
// task touched so far.
func (t *turns) SystemPrompt(mode string, model llm.ModelInfo, history []llm.Message) string {
	cfg := t.a.cfg
	cfg.MCP = t.mcp
	return buildPrompt(t.a.rules, t.a.cfg.GlobalRulesDir, t.reg, mode, t.sys, t.settings, model, cfg,
		touchedPaths(history), t.skills, t.modes)
}

// EnvDetails is also where the task's first request waits for the MCP servers still
// connecting (awaitMCP): the loop (core/task) calls it on every turn before it renders the
// system prompt for that turn's request, and with the run's context.
func (t *turns) EnvDetails(ctx context.Context, r task.EnvRequest) string {
	t.awaitMCP(ctx)
	return envdetails.Build(ctx, envdetails.Input{IDE: t.sys.IDE, Workspace: t.ws, Lists: t.a.cfg.FileLists, Editor: t.host.Editor(),
		Terminals: t.terminals, Recent: t.recent, First: r.First, Mode: r.Mode, ContextTokens: r.ContextTokens,
		ContextWindow: r.ContextWindow})
}

// ExpandUser expands mentions, then a slash command; workflows are read again for every
// message (toggles and files change while a task runs); diagnostics come from the editor when
// one is connected; @terminal shows the output of the task's commands not reported yet.
func (t *turns) ExpandUser(ctx context.Context, text string) string {
	d := mentions.Deps{Files: t.ws, Terminal: registryTerminal(t.terminals),
		Render: webRenderer(t.a.env.Settings(), t.a.cfg)}
	if t.editor != nil {
		ed := t.editor
		d.Diagnostics = mentions.DiagnosticsFunc(func(ctx context.Context) ([]tools.Diagnostic, error) {
			return ed.Diagnostics(ctx, nil)
		})
	}
	wfs, err := rules.Workflows(t.ws.Root(), t.a.cfg.GlobalWorkflowsDir, t.a.env.Settings().RuleToggles)
	if err != nil {
		t.a.cfg.Logger.Warn("agent: reading workflows", "err", err)
	}
	if expanded, ok := ExpandMCPPrompt(ctx, t.mcp, text); ok {
		text = expanded
	}
	return ExpandUser(ctx, d, wfs, text).Text
}

// awaitMCP waits, once per task, until no MCP server is making its first connection attempt,
// each for at most its own timeout (mcp.Hub.WaitConnecting), so that the first request's
// system prompt lists the servers' tools (docs/architecture.md, "MCP"). The daemon connects
// its servers when it starts, so in the editor there is usually nothing left to wait for; a
// fresh `cairn run` or `cairn resume` waits for the handshakes. A run cancelled during the
// wait leaves it undone: the next run's first request waits again.
func (t *turns) awaitMCP(ctx context.Context) {
	hub := t.mcp
	if t.mcpSettled || hub == nil {
		return
	}
	if _, ok := t.reg.Get(mcptool.UseTool); !ok {
		if _, ok := t.reg.Get(mcptool.AccessResource); !ok {
			t.mcpSettled = true // the prompt describes no server
			return
		}
	}
	start := time.Now()
	if err := hub.WaitConnecting(ctx); err != nil {
		t.a.cfg.Logger.Debug("agent: waiting for MCP servers", "err", err)
		return
	}
	t.mcpSettled = true
	if waited := time.Since(start); waited >= 100*time.Millisecond {
		t.a.cfg.Logger.Info("agent: the first request waited for MCP servers to connect", "waited", waited)
	}
}

func (t *turns) Project(history []llm.Message, lastTokens int64, contextWindow int) []llm.Message {
	return window.Project(history, t.fit, lastTokens, contextWindow)
}

func (t *turns) ContextOverflow() { window.Shrink(t.fit) }

func (t *turns) Checkpoint(ctx context.Context) (string, error) {
	if t.checkpoints == nil {
		return "", nil
	}
	return t.checkpoints.commit(ctx)
}

func (t *turns) ToolRan(_ context.Context, read, changed []string) { t.recent.Files(read, changed) }

// Close ends the commands left running ("proceed while running"), the browser, the file
// watcher and the checkpoint repository.
func (t *turns) Close() error {
	var cerr, berr error
	if t.checkpoints != nil {
		cerr = t.checkpoints.close()
	}
	if t.browser != nil {
		berr = t.browser.Close()
	}
	if err := joinErrs(t.recent.Close(), t.terminals.KillAll(), cerr, berr, t.closeMCP()); err != nil {
		return fmt.Errorf("agent: closing the task: %w", err)
	}
	return nil
}
