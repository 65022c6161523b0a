// Package agent assembles what a task needs from the world around its loop: the tools, the
// model client, the system prompt with the enabled rules, user-text expansion (mentions, then
// slash commands), environment details, the context-window projection, checkpoints, the
// user's trusted hooks, and the host — the editor connected now, else the machine's own. The daemon supplies a small Env;
// the agent turns it into task.Deps, one task at a time.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/envdetails"
	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
	"github.com/cairnhq/cairn/core/lsp"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/delegate"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/tools/shell"
	fswatch "github.com/cairnhq/cairn/core/watch"
	"github.com/cairnhq/cairn/core/window"
	"github.com/cairnhq/cairn/core/workspace"
)

// Env is what the agent needs from the daemon around it.
type Env interface {
	// Settings returns the current settings.
	Settings() config.Settings
	// Editor returns the host to use for the editor with the stable id: calls reach whichever
	// connection serves that editor at the time, and fallback while none does. name is the
	// IDE's name when an editor with that id is connected now ("" otherwise).
	Editor(id string, fallback tools.Host) (host tools.Host, name string)
}

// Config is where the agent finds the user's files.
type Config struct {
	// DataDir holds the checkpoint repositories ("" turns checkpoints off).
	DataDir string
	// Ledger records the commands run outside the command sandbox on the machine's own
	// terminal, for the next daemon on the data dir to stop what a killed daemon left (nil:
	// no record).
	Ledger *direct.Ledger
	// GlobalRulesDir, GlobalWorkflowsDir and GlobalSkillsDir are the user's global rules,
	// workflows and skills.
	GlobalRulesDir     string
	GlobalWorkflowsDir string
	GlobalSkillsDir    string
	Logger             *slog.Logger
	// MCP is the daemon's one MCP hub, shared by every task (nil: no MCP servers).
	MCP *mcp.Hub
	// GlobalHooksDir is the user's global hooks folder.
	GlobalHooksDir string
	// GlobalModesDir is the user's global modes folder (docs/modes.md).
	GlobalModesDir string
	// Hooks records the hooks the user enabled and trusted (nil: hooks never run).
	Hooks *hooks.Store
	// Version is Cairn's version, told to hooks.
	Version string
	// FindBrowser looks for the browser to drive, given the configured path (nil:
	// browser.Find). The browser is offered only when it finds one or a remote browser is set
	// (README "Browser and the web").
	FindBrowser func(configured string) (string, error)
	// SearchIndexes are the daemon's search indexes, one per workspace root, shared by every
	// task's search_files (nil: searches scan). The composition root closes them.
	SearchIndexes *search.Indexes
	// FileLists are the daemon's file lists, one per workspace root, which list_files reads
	// where one is held open (nil: it reads the disk). The composition root closes them.
	FileLists *workspace.Lists
	// Watch is the daemon's one file-system watcher, through which every task's environment
	// details notice changed files (nil: they poll). The composition root closes it.
	Watch *fswatch.Hub
	// Languages are the daemon's language servers (LanguageServers): the diagnostics of the
	// tasks no editor reports problems for. Nil: such tasks get none. The composition root
	// closes them.
	Languages *lsp.Manager
	// Policy says where the managed and user policy files are (core/policy); each task adds
	// its workspace roots' .cairn/policy.json. nil reads no policy file (tests of this package).
	Policy *policy.Sources
	// HTTPClient carries every model request (core/egress: the proxy and the extra CA
	// certificates); nil: a plain client.
	HTTPClient *http.Client
	// Egress is the proxy and the extra authorities web_fetch and the browser use (the zero
	// Config: none).
	Egress egress.Config
	// Telemetry receives every task's runs, requests, tool calls and approvals (nil: none;
	// README "OpenTelemetry").
	Telemetry telemetry.Recorder
}

// DefaultConfig returns the global folders in the user's home (Documents/Cairn/…).
func DefaultConfig(dataDir string, logger *slog.Logger) Config {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // no home: the global folders do not exist
	}
	return Config{DataDir: dataDir, Logger: logger,
		GlobalRulesDir:     filepath.Join(home, "Documents", "Cairn", "Rules"),
		GlobalWorkflowsDir: filepath.Join(home, "Documents", "Cairn", "Workflows"),
		GlobalSkillsDir:    filepath.Join(home, "Documents", "Cairn", "Skills"),
		GlobalHooksDir:     filepath.Join(home, "Documents", "Cairn", "Hooks"),
		GlobalModesDir:     filepath.Join(home, "Documents", "Cairn", "Modes")}
}

// Assembler builds tasks' dependencies. It is safe for concurrent use.
type Assembler struct {
	env   Env
	cfg   Config
	rules *rules.Loader
	// unconfined warns once in the log that hooks run without the sandbox because none can
	// be set up here.
	unconfined sync.Once
}

// New returns an assembler over env.
func New(env Env, cfg Config) *Assembler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Assembler{env: env, cfg: cfg, rules: rules.NewLoader()}
}

// Errors a task's assembly returns (task.ErrBadRequest wraps them: the user can fix them).
var (
	ErrNoWorkspace error = &badRequest{text: "workspace_roots is required"}
	ErrNoModel     error = &badRequest{text: "no model endpoint is configured (set a base URL and API key)"}
)

// badRequest is an error the user can fix: task.ErrBadRequest with what is wrong, its text or
// the error cause points to. A type of its own rather than fmt.Errorf's so that the errors above
// are laid out by the compiler instead of built at start (core/lazy); cause is a pointer for
// the same reason.
type badRequest struct {
	text  string
	cause *error
}

func (e *badRequest) Error() string {
	if e.cause != nil {
		return task.ErrBadRequest.Error() + ": " + (*e.cause).Error()
	}
	return task.ErrBadRequest.Error() + ": " + e.text
}

func (e *badRequest) Unwrap() []error {
	if e.cause != nil {
		return []error{task.ErrBadRequest, *e.cause}
	}
	return []error{task.ErrBadRequest}
}

// Deps builds one task's dependencies (task.DepsFunc).
func (a *Assembler) Deps(ctx context.Context, opts task.Options) (task.Deps, error) {
	if len(opts.Workspace) == 0 {
		return task.Deps{}, ErrNoWorkspace
	}
	ws, err := workspace.New(opts.Workspace...)
	if err != nil {
		return task.Deps{}, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	s := a.env.Settings()
	if opts.Overrides != nil {
		s = opts.Overrides.Apply(s)
	}
	pol, s, refused, err := a.policy(opts.Workspace, s)
	if err != nil {
		return task.Deps{}, err
	}
	if s.API.BaseURL == "" && s.API.APIKey == "" && !usesEditorModels(s) {
		return task.Deps{}, ErrNoModel
	}
	dh := direct.NewWithSecrets("", opts.Workspace, s.Secrets())
	dh.RecordCommands(a.cfg.Ledger)
	if a.cfg.Languages != nil {
		// Without an editor that reports problems (no editor, or one that offers none: an
		// ACP client), the edits' results name what the language servers report.
		dh.UseDiagnostics(a.cfg.Languages)
		if opts.HostID == "" {
			a.cfg.Languages.Warm(opts.Workspace)
		}
	}
	var host tools.Host = dh
	ide := "Cairn CLI"
	if opts.HostID != "" {
		// The task names its editor by the editor's stable id: a reconnected editor serves it,
		// and while none is connected the machine's own host does.
		var name string
		host, name = a.env.Editor(opts.HostID, host)
		if name != "" {
			ide = name
		}
	}
	var editor tools.Editor // the machine's own host has no diagnostics to offer
	if opts.HostID != "" {
		editor = host.Editor()
	}
	terminals := shell.NewRegistry()
	terminals.SetSandbox(commandSandbox(s, ws, a.cfg.DataDir))
	modelsOf := a.models
	if usesEditorModels(s) {
		// The editor's own models: every request goes through the editor that started the
		// task (core/llm/vscodelm).
		b, err := editorBridge(opts.HostID, host)
		if err != nil {
			return task.Deps{}, err
		}
		// A later change of the task's model (the model picker) lists the models again.
		modelsOf = func(s config.Settings) *task.Models {
			if !usesEditorModels(s) {
				return a.models(s)
			}
			return a.editorModels(context.Background(), s, b)
		}
	}
	var models *task.Models
	if b, ok := host.(vscodelm.Bridge); ok && usesEditorModels(s) {
		models = a.editorModels(ctx, s, b)
	} else {
		models = modelsOf(s)
	}
	// One session serves both modes; each request offers browser_action only when its own
	// model sees images (tools.ForModel).
	images := models.ActInfo.SupportsImages || models.Plan != "" && models.PlanInfo.SupportsImages
	session := browserSession(s, llm.ModelInfo{SupportsImages: images}, a.cfg)
	catalog := skillCatalog{root: ws.Root(), global: a.cfg.GlobalSkillsDir, settings: a.env.Settings, logger: a.cfg.Logger}
	hub, ownMCP := a.taskHub(opts.Overrides)
	sub := &subRunner{a: a, roots: opts.Workspace, host: host, provider: models.Provider, model: models.Act, info: models.ActInfo, ide: ide,
		mcp: hub, policy: pol}
	modeCat := modeCatalog{roots: opts.Workspace, global: a.cfg.GlobalModesDir}
	reg := taskTools(offeredTerminals(s, terminals), session, webRenderer(s, a.cfg), fetcher(a.cfg), hub, catalog, sub, a.cfg.warm(),
		doneCheck(opts.Overrides, terminals), a.navigator(opts.Workspace, host))
	reg.Add(delegate.New(&delegateRunner{sub: sub, modes: modeCat}))
	reg = holdToModes(reg, modeCat, ws)
	t := &turns{
		modes:  modeCat,
		skills: catalog,
		a:      a, ws: ws, host: host, editor: editor, terminals: terminals, reg: reg, settings: s,
		browser: session,
		mcp:     hub, ownMCP: ownMCP,
		recent: envdetails.NewTracker(a.cfg.Watch),
		sys:    systemInfo(ide, ws.Root()),
		fit:    &window.State{Dedup: s.DedupFileContents},
	}
	if s.CheckpointsEnabled && a.cfg.DataDir != "" {
		t.checkpoints = &checkpoints{dataDir: a.cfg.DataDir, root: ws.Root()}
	}
	return task.Deps{
		Provider:      models.Provider,
		Model:         models.Act,
		ModelInfo:     models.ActInfo,
		PlanModel:     models.Plan,
		PlanModelInfo: models.PlanInfo,
		ModeModels:    modeCat.models(s),
		Models:        modelsOf,
		Registry:      reg,
		Host:          host,
		Files:         ws,
		Settings:      s,
		Turns:         t,
		Commands:      t,
		Modes:         modeCat,
		HostID:        opts.HostID,
		Logger:        a.cfg.Logger,
		Hooks:         a.hookRunner(opts.Workspace, s),
		Sandbox:       sandbox.Probe(),
		Policy:        pol,
		Refused:       refused,
		Telemetry:     a.cfg.Telemetry,
	}, nil
}

// policy loads the policy files of a task's workspace and applies their switches to its
// settings (docs/settings.md, "Policy files"): what a switch forbids is turned off, logged and
// returned for the task's chat to say when it starts, and a provider, ACT model or PLAN model the policy does not list refuses the task (a model
// picked later, or a mode's own, is checked where it is used: core/task). A policy file that does
// not parse refuses it too: the rules it would set are unknown.
func (a *Assembler) policy(roots []string, s config.Settings) (*policy.Set, config.Settings, []policy.Refusal, error) {
	if a.cfg.Policy == nil {
		return nil, s, nil, nil
	}
	src := *a.cfg.Policy
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			src.Roots = append(src.Roots, abs)
		}
	}
	pol, err := policy.Load(src)
	if err != nil {
		return nil, s, nil, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	// YOLO stays as set: each approval applies the switch itself and its card says so
	// (core/task/env.go); the sandbox and the network are fixed when the task starts.
	yolo := s.AutoApprove.YOLO
	s, refused := pol.Clamp(s)
	s.AutoApprove.YOLO = yolo
	for _, r := range refused {
		a.cfg.Logger.Warn("policy", "refused", r.Error())
	}
	for _, model := range []string{s.API.Model, s.API.PlanModel} {
		if model == "" {
			continue
		}
		if err := pol.CheckModel(s.API.Preset, model); err != nil {
			return nil, s, nil, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
		}
	}
	return pol, s, refused, nil
}

// models resolves the task's models from its settings: the ACT model with the settings'
// window, prices and tool format, and the PLAN model, when it is another one, from the model
// table (the settings' prices are the ACT model's).
func (a *Assembler) models(s config.Settings) *task.Models {
	info := catalogueInfo(s, a.cfg.DataDir, ModelInfo(s))
	return &task.Models{Provider: newProvider(s, a.cfg.HTTPClient), Act: s.API.Model, ActInfo: info,
		Plan: s.API.PlanModel, PlanInfo: planModelInfo(s, info)}
}

// hookRunner returns the task's hook runner, or nil when the daemon keeps no hook trust.
func (a *Assembler) hookRunner(roots []string, s config.Settings) task.Hooks {
	if a.cfg.Hooks == nil {
		return nil
	}
	abs := make([]string, 0, len(roots))
	for _, r := range roots {
		if p, err := filepath.Abs(r); err == nil {
			abs = append(abs, p)
		}
	}
	box, why := ProcessSandbox(s, a.cfg.DataDir, abs)
	if why != "" {
		a.unconfined.Do(func() {
			a.cfg.Logger.Warn("hooks run without the command sandbox: it cannot be set up here", "reason", why)
		})
	}
	return hooks.NewRunner(hooks.Options{Store: a.cfg.Hooks, Roots: abs, GlobalDir: a.cfg.GlobalHooksDir,
		Version: a.cfg.Version, Timeout: time.Duration(s.HookTimeoutSeconds) * time.Second, DropEnv: s.SecretEnvNames(), Scrub: s.Secrets().Scrub,
		Sandbox: box})
}

// joinErrs joins the errors of releasing several things.
func joinErrs(errs ...error) error { return errors.Join(errs...) }
