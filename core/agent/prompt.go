package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/skills"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/delegate"
	"github.com/cairnhq/cairn/core/tools/shell"
)

// buildPrompt renders the system prompt for one task: its tools, mode and machine, and the
// rules that are switched on and apply to the paths the task touched (see touchedPaths).
func buildPrompt(loader *rules.Loader, globalRules string, reg *tools.Registry, mode string, sys prompt.SystemInfo,
	s config.Settings, info llm.ModelInfo, cfg Config, touched []string, catalog skillCatalog, mc modeCatalog) string {
	enabled, err := loader.ForTask(sys.Cwd, globalRules, s.RuleToggles, touched)
	if err != nil && cfg.Logger != nil {
		cfg.Logger.Warn("agent: reading rules", "err", err)
	}
	usable := skills.Usable(catalog.Skills())
	w, h := s.BrowserSize()
	modeInfo, choices := mc.promptModes(mode)
	out, err := prompt.Render(prompt.Input{Specs: tools.ForModel(reg.InMode(mode, promptSpecs(reg.Specs(), usable)), info.SupportsImages),
		Skills: usable, Mode: mode, ModeInfo: modeInfo, Modes: choices, System: sys, Cwd: sys.Cwd,
		BrowserViewport:   fmt.Sprintf("%dx%d", w, h),
		FocusChainEnabled: s.FocusChainEnabled, PreferredLanguage: s.PreferredLanguage,
		CustomInstructions: s.CustomInstructions, Rules: enabled, IgnoreFileExists: ignoreFileExists(sys.Cwd),
		SupportsImages: info.SupportsImages, MCPServers: mcpServers(cfg.MCP), NativeTools: info.NativeTools()})
	if err != nil && cfg.Logger != nil {
		// A template that fails is a bug in Cairn: the task goes on with the sections that
		// rendered, and the daemon log says which failed.
		cfg.Logger.Error("agent: rendering the system prompt (a bug: please report it)", "err", err)
	}
	return out
}

// SystemPrompt is the exact prompt a task in root would get (`cairn debug prompt`).
func SystemPrompt(root, mode, ide string, s config.Settings, cfg Config) string {
	info := ModelInfo(s)
	catalog := skillCatalog{root: root, global: cfg.GlobalSkillsDir, settings: func() config.Settings { return s }}
	// The subagent and delegate runners are never called here: only the tools' specs are rendered.
	mc := modeCatalog{roots: []string{root}, global: cfg.GlobalModesDir}
	reg := taskTools(offeredTerminals(s, shell.NewRegistry()), browserSession(s, info, cfg), webRenderer(s, cfg), fetcher(cfg), cfg.MCP, catalog, &subRunner{}, warmFiles{}, nil, nil)
	reg.Add(delegate.New(&delegateRunner{}))
	reg = holdToModes(reg, mc, nil)
	return buildPrompt(rules.NewLoader(), cfg.GlobalRulesDir, reg, mode, systemInfo(ide, root), s, info, cfg, nil, catalog, mc)
}

func systemInfo(ide, root string) prompt.SystemInfo {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
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
