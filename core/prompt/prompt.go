// Package prompt renders the system prompt (docs/prompt.md) and the short model-facing notes the
// loop sends back when something about a tool call needs correcting.
//
// It is pure: everything it needs comes in an Input, and the same Input always renders the
// same bytes (no clock, no map iteration), so prompt caching upstream and the golden files in
// testdata/ stay stable. Section texts are text/template files under sections/, the loop's
// notes under feedback/; the tool list is generated from the tools' own Specs so that a tool
// the user switched off never leaks into the prompt, and neither does the prose about it.
package prompt

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/skills"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Input is everything the system prompt depends on.
type Input struct {
	// Specs are the tools offered to the model, in the order to list them.
	Specs []tools.Spec
	// Mode is "act", "plan" or a custom mode's slug (then ModeInfo describes it).
	Mode string
	// ModeInfo is the custom mode the task is in (nil in ACT and PLAN): the MODE section,
	// the last of the prompt so that a switch between modes leaves everything before it as
	// it was (docs/modes.md).
	ModeInfo *ModeInfo
	// Modes are the modes switch_mode and delegate may name, listed in the MODE section when
	// either tool is offered.
	Modes []ModeChoice
	// MCPServers are the configured MCP servers; only connected ones are described.
	MCPServers []MCPServer
	System     SystemInfo
	// Cwd is the primary workspace root that relative paths resolve against.
	Cwd               string
	FocusChainEnabled bool
	// PreferredLanguage, when set, asks the model to answer in that language.
	PreferredLanguage string
	// CustomInstructions is the user's free-text custom instructions setting.
	CustomInstructions string
	// Rules are the enabled rules, in the order core/rules loads them.
	Rules []rules.Rule
	// Skills are the skills the model may load with use_skill (only names and descriptions
	// are rendered; the SKILLS section appears when there is one and use_skill is offered).
	Skills []skills.Skill
	// IgnoreFileExists is set when the workspace has a .clineignore or .cairnignore.
	IgnoreFileExists bool
	// BrowserViewport is the browser size, e.g. "900x600".
	BrowserViewport string
	// SupportsImages is set when the model accepts image input.
	SupportsImages bool
	// NativeTools is set for a model that calls tools natively: the tools are sent as
	// function definitions (ToolDefinitions), and the prompt describes no XML format.
	NativeTools bool
}

// ModeInfo is a custom mode as the MODE section describes it.
type ModeInfo struct {
	Slug, Name, Role, Instructions string
	// Groups lists the tool groups the mode may use ("read, edit").
	Groups string
	// EditPattern, when set, is the regular expression the paths it edits must match, and
	// EditPatternNote what it means.
	EditPattern, EditPatternNote string
}

// ModeChoice is one mode the model may switch to or delegate to.
type ModeChoice struct {
	Slug, Name, Description string
}

// SystemInfo describes the machine, for SYSTEM INFORMATION.
type SystemInfo struct {
	OS    string
	IDE   string // "Visual Studio Code" or "Cairn CLI"
	Shell string
	Home  string
	Cwd   string
}

// MCP server statuses; only connected servers have their tools listed.
const (
	StatusConnected    = "connected"
	StatusConnecting   = "connecting"
	StatusDisconnected = "disconnected"
)

// MCPServer is one configured MCP server as the prompt shows it.
type MCPServer struct {
	Name              string
	Status            string // StatusConnected, StatusConnecting or StatusDisconnected
	Tools             []MCPTool
	ResourceTemplates []MCPResourceTemplate
	Resources         []MCPResource
	// Instructions is what the server asked clients to tell the model ("" when none).
	Instructions string
}

// MCPTool is a tool an MCP server offers.
type MCPTool struct {
	Name        string
	Description string
	// InputSchema is the tool's JSON Schema; it is rendered compacted.
	InputSchema string
}

// MCPResourceTemplate is a parameterised resource URI an MCP server offers.
type MCPResourceTemplate struct {
	URITemplate string
	Name        string
	Description string
}

// MCPResource is a fixed resource an MCP server offers.
type MCPResource struct {
	URI         string
	Name        string
	Description string
}

// Tool names the prose refers to. The prompt mentions a tool only when its Spec is offered.
const (
	toolBrowser       = toolnames.BrowserAction
	toolUseMCP        = toolnames.UseMCPTool
	toolMCPResource   = toolnames.AccessMCPResource
	toolWriteFile     = toolnames.WriteToFile
	toolReplaceInFile = toolnames.ReplaceInFile
)

// sectionSeparator sits between top-level sections, the shape models trained on Cline expect.
const sectionSeparator = "\n\n====\n\n"

// sectionOrder is the order of the top-level sections; a section that renders empty (its
// condition is not met) is left out together with its separator.
var sectionOrder = []string{
	"role", "tool_use", "todo", "mcp", "editing", "modes",
	"capabilities", "skills", "rules", "system", "objective", "custom", "mode",
}

//go:embed sections/*.md
var sectionFS embed.FS

// sectionTmpl is parsed on first use, not at start-up (the daemon's start time is a target).
var sectionTmpl = lazy.Value[*template.Template]{New: func() *template.Template {
	return template.Must(template.New("sections").
		Funcs(template.FuncMap{"indent": indent}).
		ParseFS(sectionFS, "sections/*.md"))
}}

// Render renders the system prompt. Templates are fixed at build time and covered by the
// golden tests, so a failure is a bug: Render then returns the sections that did render, for
// the task to go on with, and the error, for the caller to report.
func Render(in Input) (string, error) {
	v := newView(in)
	parts := make([]string, 0, len(sectionOrder))
	var firstErr error
	for _, name := range sectionOrder {
		var b bytes.Buffer
		if err := sectionTmpl.Get().ExecuteTemplate(&b, name+".md", v); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("prompt: section %s: %w", name, err)
			}
			continue
		}
		if s := strings.TrimSpace(b.String()); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, sectionSeparator) + "\n", firstErr
}

// view is the data every section template sees.
type view struct {
	Input
	Tools []toolView
	// Has is the set of offered tool names; templates gate prose with {{if .Has.name}}.
	Has     map[string]bool
	Plan    bool
	Servers []serverView
	// Offline names the configured servers that are not connected. Whether such a server is
	// connecting or waiting to retry is left out: a failing server alternates between the
	// two, and the text must not change with it (prompt caching).
	Offline    []string
	MCP        bool
	RuleGroups []ruleGroup
	Custom     bool
	// ModeList is set when the MODE section lists the modes (switch_mode or delegate offered).
	ModeList bool
}

type toolView struct {
	Name        string
	Description string
	Params      []tools.Param
}

type serverView struct {
	MCPServer
	Tools []MCPTool // with compacted schemas
}

type ruleGroup struct {
	Title string
	Rules []rules.Rule
}

func newView(in Input) view {
	if in.Cwd == "" {
		in.Cwd = in.System.Cwd
	}
	if in.System.Cwd == "" {
		in.System.Cwd = in.Cwd
	}
	if in.BrowserViewport == "" {
		in.BrowserViewport = "900x600"
	}
	v := view{Input: in, Has: map[string]bool{}, Plan: strings.EqualFold(in.Mode, "plan")}
	for _, s := range in.Specs {
		v.Has[s.Name] = true
		v.Tools = append(v.Tools, toolView{Name: s.Name, Description: strings.TrimSpace(s.Description), Params: s.Params})
	}
	v.MCP = len(in.MCPServers) > 0 && (v.Has[toolUseMCP] || v.Has[toolMCPResource])
	if v.MCP {
		for _, s := range in.MCPServers {
			if s.Status != StatusConnected {
				v.Offline = append(v.Offline, s.Name)
				continue
			}
			sv := serverView{MCPServer: s}
			for _, t := range s.Tools {
				t.InputSchema = compactJSON(t.InputSchema)
				sv.Tools = append(sv.Tools, t)
			}
			v.Servers = append(v.Servers, sv)
		}
	}
	v.ModeList = len(in.Modes) > 0 && (v.Has[toolnames.SwitchMode] || v.Has[toolnames.Delegate])
	v.RuleGroups = groupRules(in.Rules)
	v.Custom = strings.TrimSpace(in.PreferredLanguage) != "" || strings.TrimSpace(in.CustomInstructions) != "" ||
		len(v.RuleGroups) > 0 || in.IgnoreFileExists
	return v
}

// ruleTitles heads each group of rules in USER'S CUSTOM INSTRUCTIONS.
var ruleTitles = lazy.Value[map[rules.Source]string]{New: func() map[rules.Source]string {
	return map[rules.Source]string{
		rules.SourceGlobal:      "Global rules",
		rules.SourceClinerules:  "Workspace rules (.clinerules)",
		rules.SourceCairnrules:  "Workspace rules (.cairnrules)",
		rules.SourceCursorrules: "Cursor rules (.cursorrules)",
		rules.SourceCursorDir:   "Cursor rules (.cursor/rules)",
		rules.SourceWindsurf:    "Windsurf rules (.windsurfrules)",
		rules.SourceAgents:      "AGENTS.md",
	}
}}

// groupRules keeps enabled, non-empty rules in their given order, starting a new group each
// time the source changes.
func groupRules(rs []rules.Rule) []ruleGroup {
	var out []ruleGroup
	for _, r := range rs {
		if !r.Enabled || strings.TrimSpace(r.Content) == "" {
			continue
		}
		r.Content = strings.TrimSpace(r.Content)
		if n := len(out); n == 0 || out[n-1].Rules[0].Source != r.Source {
			title, ok := ruleTitles.Get()[r.Source]
			if !ok {
				title = "Rules (" + string(r.Source) + ")"
			}
			out = append(out, ruleGroup{Title: title})
		}
		out[len(out)-1].Rules = append(out[len(out)-1].Rules, r)
	}
	return out
}

// compactJSON strips insignificant whitespace from a schema: the same information in fewer
// tokens. A schema that is not valid JSON is passed through unchanged.
func compactJSON(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// indent prefixes every line after the first with pad, for multi-line values in lists.
func indent(pad, s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+pad)
}
