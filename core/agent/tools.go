package agent

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/browser"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/edit"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/mcptool"
	"github.com/cairnhq/cairn/core/tools/nav"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/tools/subagents"
	"github.com/cairnhq/cairn/core/tools/useskill"
	"github.com/cairnhq/cairn/core/tools/webfetch"
	"github.com/cairnhq/cairn/core/workspace"
)

// Tools returns a fresh tool registry for one task (edit tools keep per-task streaming state;
// terminals are the task's running commands), without browser_action. The MCP tools are
// offered when the daemon's hub has at least one server configured (docs/tools.md, "Which tools a
// task gets": no MCP server, no MCP tools or section). search_files uses the warm indexes idx
// (nil: it scans).
func Tools(terminals *shell.Registry, hub *mcp.Hub, idx *search.Indexes) *tools.Registry {
	return taskTools(terminals, nil, nil, webfetch.Fetcher{}, hub, nil, nil, warmFiles{search: idx}, nil, nil)
}

// warmFiles are what the daemon keeps of the workspace roots for the read tools: the search
// indexes (search_files) and the file lists (list_files). Either may be nil: the tool reads
// the disk.
type warmFiles struct {
	search *search.Indexes
	lists  *workspace.Lists
}

// warm returns the daemon's warm files from its config.
func (cfg Config) warm() warmFiles { return warmFiles{search: cfg.SearchIndexes, lists: cfg.FileLists} }

// taskTools is Tools plus browser_action over session when it is not nil; then every other
// tool refuses to run while the session is open. web_fetch renders pages built by scripts
// with render (nil: it does not). use_skill loads skills from catalog (nil: not offered; the
// prompt also leaves it out while no skill is usable). use_subagents is offered when sub is
// not nil. execute_command is offered only when terminals is not nil (the NoCommands setting
// passes nil). attempt_completion runs check, when not nil, before it accepts a result. The
// code navigation tools ask navigator (nil: go_to_definition parses, find_references has
// no answer). search_files and list_files read the daemon's warm files (warmFiles).
func taskTools(terminals *shell.Registry, session *browser.Session, render webfetch.Renderer, fetch webfetch.Fetcher, hub *mcp.Hub,
	catalog useskill.Catalog, sub subagents.Runner, warm warmFiles, check interact.DoneCheck, navigator nav.Navigator) *tools.Registry {
	var first []tools.Tool
	if terminals != nil {
		first = append(first, shell.New(terminals), shell.NewReadOutput(terminals), shell.NewStop(terminals))
	}
	r := tools.NewRegistry(append(first,
		readfile.New(),
		edit.NewWrite(),
		edit.NewReplace(),
		search.NewIndexed(warm.search),
		listfiles.New(warm.lists),
		codedefs.New(),
		nav.NewDefinition(navigator, findDefinitions),
		nav.NewReferences(navigator),
		webfetch.New(fetch, render),
	)...)
	if sub != nil {
		r.Add(subagents.New(sub))
	}
	if hub != nil && len(hub.Servers()) > 0 {
		for _, t := range mcptool.All(hub) {
			r.Add(t)
		}
	}
	if catalog != nil {
		r.Add(useskill.New(catalog))
	}
	if session != nil {
		r.Add(browser.New(session))
	}
	for _, t := range interact.All(check) {
		r.Add(t)
	}
	if session != nil {
		return guard(r, session)
	}
	return r
}

// NewProvider builds the model client for the settings: OpenAI-compatible, with the retry and
// idle-timeout policy of docs/prompt.md, "Providers and retries".
func NewProvider(s config.Settings) llm.Provider { return newProvider(s, nil) }

// newProvider is NewProvider over the HTTP client hc (nil: a plain client).
func newProvider(s config.Settings, hc *http.Client) llm.Provider {
	cfg := providerConfig(s)
	cfg.HTTPClient = hc
	p := openai.New(cfg)
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
	if s.API.SupportsImages {
		images := true
		o.SupportsImages = &images
	}
	if s.API.InputPrice > 0 {
		o.InputPrice = &s.API.InputPrice
	}
	if s.API.OutputPrice > 0 {
		o.OutputPrice = &s.API.OutputPrice
	}
	o.ToolFormat = s.API.ToolFormat
	return llm.ResolveModel(s.API.Model, &o)
}

// planModelInfo resolves the PLAN model: the ACT model's info when it is the same model, else
// sideModelInfo's.
func planModelInfo(s config.Settings, act llm.ModelInfo) llm.ModelInfo {
	if s.API.PlanModel == "" || s.API.PlanModel == s.API.Model {
		return act
	}
	return sideModelInfo(s, s.API.PlanModel)
}

// sideModelInfo resolves a model of the endpoint besides the ACT model (the PLAN model, a
// mode's model): the table's entry with the user's context window (set for the endpoint,
// which serves them all).
func sideModelInfo(s config.Settings, model string) llm.ModelInfo {
	var o llm.ModelInfoOverride
	if s.API.ContextWindow > 0 {
		w := int(s.API.ContextWindow)
		o.ContextWindow = &w
	}
	return llm.ResolveModel(model, &o)
}

// providerConfig is the client configuration of the settings' preset: its cache breakpoints,
// and Azure's deployment routing.
func providerConfig(s config.Settings) openai.Config {
	pr := presets.Lookup(s.API.Preset)
	cfg := openai.Config{BaseURL: s.API.BaseURL, APIKey: s.API.APIKey, Headers: s.API.Headers, CacheControl: pr.CacheControl}
	if cfg.BaseURL == "" {
		cfg.BaseURL = pr.BaseURL
	}
	if pr.Auth == presets.AuthAzure {
		cfg.Azure = &openai.Azure{Endpoint: s.API.BaseURL, Deployment: s.API.AzureDeployment, APIVersion: s.API.AzureAPIVersion}
	}
	return cfg
}

// catalogueInfo prices an OpenRouter model from the stored catalogue when the table does not
// know it; the user's overrides still win.
func catalogueInfo(s config.Settings, dataDir string, info llm.ModelInfo) llm.ModelInfo {
	if presets.Lookup(s.API.Preset).List != presets.ListOpenRouter || info.InputPrice > 0 || info.OutputPrice > 0 {
		return info
	}
	m, ok := presets.CachedOpenRouterModel(dataDir, s.API.Model)
	if !ok {
		return info
	}
	out := m.Info()
	if s.API.ContextWindow > 0 {
		out.ContextWindow = int(s.API.ContextWindow)
	}
	return out
}

// doneCheck is the task's "done when" check (README, "Done when"), run with the sandbox of
// the task's commands, or nil when the task has none. It runs even where the settings leave
// execute_command out: the user named it.
func doneCheck(o *config.Overrides, terminals *shell.Registry) interact.DoneCheck {
	if o == nil || strings.TrimSpace(o.DoneWhen) == "" {
		return nil
	}
	return shell.NewCheck(terminals, strings.TrimSpace(o.DoneWhen))
}

// findDefinitions is go_to_definition's answer without a language server: the definitions
// tree-sitter finds by name (codedefs.Find).
func findDefinitions(ctx context.Context, env *tools.Env, abs, symbol string) ([]nav.Location, error) {
	places, err := codedefs.Find(ctx, env.Files.Root(), filepath.Dir(abs), symbol, env.Files.Ignored)
	out := make([]nav.Location, len(places))
	for i, p := range places {
		out[i] = nav.Location{Path: p.Path, Line: p.Line}
	}
	return out, err
}

// offeredTerminals is terminals, or nil when the settings leave execute_command out
// (config.Settings.NoCommands: `cairn eval`'s default protocol, README "Benchmark").
func offeredTerminals(s config.Settings, terminals *shell.Registry) *shell.Registry {
	if s.NoCommands {
		return nil
	}
	terminals.SetWait(time.Duration(s.CommandWaitSeconds) * time.Second)
	return terminals
}
