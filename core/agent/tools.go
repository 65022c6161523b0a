package agent

import (
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/browser"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/edit"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/mcptool"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/tools/subagents"
	"github.com/cairnhq/cairn/core/tools/webfetch"
)

// Tools returns a fresh tool registry for one task (edit tools keep per-task streaming state;
// terminals are the task's running commands), without browser_action. The MCP tools are
// offered when the daemon's hub has at least one server configured (spec §4: no MCP, no MCP
// tools or section).
func Tools(terminals *shell.Registry, hub *mcp.Hub) *tools.Registry {
	return taskTools(terminals, nil, nil, hub, nil)
}

// taskTools is Tools plus browser_action over session when it is not nil; then every other
// tool refuses to run while the session is open. web_fetch renders pages built by scripts
// with render (nil: it does not). use_subagents is offered when sub is not nil.
func taskTools(terminals *shell.Registry, session *browser.Session, render webfetch.Renderer, hub *mcp.Hub,
	sub subagents.Runner) *tools.Registry {
	r := tools.NewRegistry(
		shell.New(terminals),
		readfile.New(),
		edit.NewWrite(),
		edit.NewReplace(),
		search.New(),
		listfiles.New(),
		codedefs.New(),
		webfetch.New(webfetch.Fetcher{}, render),
	)
	if sub != nil {
		r.Add(subagents.New(sub))
	}
	if hub != nil && len(hub.Servers()) > 0 {
		for _, t := range mcptool.All(hub) {
			r.Add(t)
		}
	}
	if session != nil {
		r.Add(browser.New(session))
	}
	for _, t := range interact.All() {
		r.Add(t)
	}
	if session != nil {
		return guard(r, session)
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
	return llm.ResolveModel(s.API.Model, &o)
}
