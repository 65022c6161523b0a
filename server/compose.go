package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/cairnhq/cairn/server/hostbridge"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/envdetails"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/edit"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/window"
	"github.com/cairnhq/cairn/core/workspace"
)

// Tools returns a fresh tool registry for one task (edit tools keep per-task streaming state).
func Tools(terminals *shell.Registry) *tools.Registry {
	r := tools.NewRegistry(
		shell.New(terminals),
		readfile.New(),
		edit.NewWrite(),
		edit.NewReplace(),
		search.New(),
		listfiles.New(),
		codedefs.New(),
	)
	for _, t := range interact.All() {
		r.Add(t)
	}
	return r
}

// NewProvider builds the model client for the settings: OpenAI-compatible, with the retry and
// idle-timeout policy of spec §2.4.
func NewProvider(s config.Settings) llm.Provider {
	p := openai.New(openai.Config{BaseURL: s.API.BaseURL, APIKey: s.API.APIKey, Headers: s.API.Headers})
	idle := time.Duration(s.API.RequestIdleTimeout) * time.Second
	return llm.WithIdleTimeout(llm.WithRetry(p, llm.DefaultRetryPolicy()), idle)
}

// ModelInfo resolves the model table entry with the user's overrides.
func ModelInfo(s config.Settings) llm.ModelInfo {
	var o llm.ModelInfoOverride
	if s.API.ContextWindow > 0 {
		w := int(s.API.ContextWindow)
		o.ContextWindow = &w
	}
	if s.API.MaxOutputTokens > 0 {
		m := int(s.API.MaxOutputTokens)
		o.MaxOutput = &m
	}
	if s.API.InputPrice > 0 {
		o.InputPrice = &s.API.InputPrice
	}
	if s.API.OutputPrice > 0 {
		o.OutputPrice = &s.API.OutputPrice
	}
	return llm.ResolveModel(s.API.Model, &o)
}

// composer builds task dependencies from the daemon's settings and hosts.
type composer struct {
	settings *config.Holder
	hosts    *hostbridge.Registry
	rules    *rules.Loader
	// GlobalRules is the user's global rules folder.
	globalRules string
	ide         string
	// dataDir holds the checkpoint repositories ("" turns checkpoints off).
	dataDir string
	logger  *slog.Logger

	// mu guards indexes.
	mu      sync.Mutex
	indexes map[string]*workspace.Index
}

var errNoWorkspace = fmt.Errorf("%w: workspace_roots is required", task.ErrBadRequest)

func (c *composer) deps(ctx context.Context, opts task.Options) (task.Deps, error) {
	if len(opts.Workspace) == 0 {
		return task.Deps{}, errNoWorkspace
	}
	ws, err := workspace.New(opts.Workspace...)
	if err != nil {
		return task.Deps{}, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	s := c.settings.Get()
	if s.API.BaseURL == "" && s.API.APIKey == "" {
		return task.Deps{}, fmt.Errorf("%w: no model endpoint is configured (set a base URL and API key)", task.ErrBadRequest)
	}
	local := direct.New("", opts.Workspace, s.SecretEnvNames()...)
	var host tools.Host = local
	var editor tools.Editor // nil with the direct host: it has no diagnostics to offer
	ide := "Cairn CLI"
	if opts.HostID != "" {
		// The task names its editor by the editor's stable id and finds the connection on each
		// call: a reconnected bridge serves it, and while none is connected the direct host does.
		host = c.hosts.Ref(opts.HostID, local)
		editor = host.Editor()
		if h, ok := c.hosts.Get(opts.HostID); ok {
			if name := h.Hello().GetIdeName(); name != "" {
				ide = name
			}
		}
	}
	terminals := shell.NewRegistry()
	recent := envdetails.NewTracker() // closed by the task's OnClose
	reg := Tools(terminals)
	info := ModelInfo(s)
	sys := systemInfo(ide, ws.Root())
	fit := &window.State{Dedup: s.DedupFileContents}
	return c.withCheckpoints(ws.Root(), s, task.Deps{
		Provider:  NewProvider(s),
		Model:     s.API.Model,
		ModelInfo: info,
		Registry:  reg,
		Host:      host,
		Files:     ws,
		Settings:  s,
		HostID:    opts.HostID,
		Logger:    c.logger,
		SystemPrompt: func(mode string) string {
			return buildPrompt(c.rules, c.globalRules, reg, mode, sys, s, info)
		},
		Project: func(history []llm.Message, lastTokens int64) []llm.Message {
			return window.Project(history, fit, lastTokens, info.ContextWindow)
		},
		ContextOverflow: func() { window.Shrink(fit) },
		ExpandUser:      c.userExpander(ws, editor, terminals),
		EnvDetails: func(ctx context.Context, r task.EnvRequest) string {
			return envdetails.Build(ctx, envdetails.Input{IDE: ide, Workspace: ws, Editor: host.Editor(), Terminals: terminals,
				Recent: recent, First: r.First, Mode: r.Mode, ContextTokens: r.ContextTokens, ContextWindow: r.ContextWindow})
		},
		OnFiles: recent.Files,
		OnClose: func() {
			_ = recent.Close()
			_ = terminals.KillAll() // commands left running ("proceed while running") end with the task
		},
	}), nil
}

// buildPrompt renders the system prompt for one task.
func buildPrompt(loader *rules.Loader, globalRules string, reg *tools.Registry, mode string, sys prompt.SystemInfo,
	s config.Settings, info llm.ModelInfo) string {
	rs, _ := loader.Load(sys.Cwd, globalRules, s.RuleToggles)
	var enabled []rules.Rule
	for _, r := range rs {
		if r.Enabled {
			enabled = append(enabled, r)
		}
	}
	return prompt.Build(prompt.Input{Specs: reg.Specs(), Mode: mode, System: sys, Cwd: sys.Cwd,
		FocusChainEnabled: s.FocusChainEnabled, PreferredLanguage: s.PreferredLanguage,
		CustomInstructions: s.CustomInstructions, Rules: enabled, IgnoreFileExists: ignoreFileExists(sys.Cwd),
		SupportsImages: info.SupportsImages})
}

// SystemPrompt is the exact prompt a task in root would get (`cairn debug prompt`).
func SystemPrompt(root, mode, ide string, s config.Settings) string {
	home, _ := os.UserHomeDir()
	return buildPrompt(rules.NewLoader(), filepath.Join(home, "Documents", "Cairn", "Rules"), Tools(shell.NewRegistry()),
		mode, systemInfo(ide, root), s, ModelInfo(s))
}

func systemInfo(ide, root string) prompt.SystemInfo {
	home, _ := os.UserHomeDir()
	shellPath := os.Getenv("SHELL")
	if shellPath == "" {
		shellPath = "/bin/sh"
	}
	return prompt.SystemInfo{OS: runtime.GOOS, IDE: ide, Shell: shellPath, Home: home, Cwd: root}
}

func ignoreFileExists(root string) bool {
	for _, name := range []string{".cairnignore", ".clineignore"} {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			return true
		}
	}
	return false
}

// index returns the file index of a workspace root, built once and kept current.
func (c *composer) index(ctx context.Context, root string) (*workspace.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix, ok := c.indexes[root]; ok {
		return ix, nil
	}
	ws, err := workspace.New(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	ix, err := workspace.NewIndex(context.WithoutCancel(ctx), ws)
	if err != nil {
		return nil, err
	}
	c.indexes[root] = ix
	return ix, nil
}

func (c *composer) closeIndexes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, ix := range c.indexes {
		errs = append(errs, ix.Close())
	}
	_ = errors.Join(errs...)
	c.indexes = map[string]*workspace.Index{}
}
