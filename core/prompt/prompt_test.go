package prompt

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/tools"
)

func baseInput() Input {
	return Input{
		Specs: testSpecs(),
		Mode:  "act",
		System: SystemInfo{
			OS: "linux", IDE: "Visual Studio Code", Shell: "/bin/bash",
			Home: "/home/dev", Cwd: "/home/dev/shop",
		},
		Cwd:               "/home/dev/shop",
		FocusChainEnabled: true,
		BrowserViewport:   "900x600",
		SupportsImages:    true,
	}
}

func testServers() []MCPServer {
	return []MCPServer{
		{
			Name:         "weather",
			Status:       StatusConnected,
			Instructions: "Cities are English names.\nAsk for at most 7 days.",
			Tools: []MCPTool{
				{
					Name:        "get_forecast",
					Description: "Forecast for a city.\nUp to 7 days ahead.",
					InputSchema: `{
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "days": {"type": "integer", "minimum": 1, "maximum": 7}
  },
  "required": ["city"]
}`,
				},
				{Name: "alerts", Description: "Active weather alerts.", InputSchema: ""},
			},
			ResourceTemplates: []MCPResourceTemplate{{URITemplate: "weather://{city}/current", Name: "Current weather", Description: "Conditions right now."}},
			Resources:         []MCPResource{{URI: "weather://stations", Name: "Stations", Description: "All known stations."}, {URI: "weather://status", Name: "Status"}},
		},
		{Name: "github", Status: StatusDisconnected, Tools: []MCPTool{{Name: "create_issue", Description: "must not be listed"}}},
		{Name: "memory", Status: StatusConnecting},
	}
}

func testRules() []rules.Rule {
	return []rules.Rule{
		{ID: "global:go.md", Source: rules.SourceGlobal, Name: "go.md", Content: "Wrap errors with %w.", Enabled: true},
		{ID: "clinerules:.clinerules/style.md", Source: rules.SourceClinerules, Name: ".clinerules/style.md", Content: "Use two-space indentation.\n", Enabled: true},
		{ID: "clinerules:.clinerules/testing.md", Source: rules.SourceClinerules, Name: ".clinerules/testing.md", Content: "Every change needs a test.", Enabled: true},
		{ID: "clinerules:.clinerules/off.md", Source: rules.SourceClinerules, Name: ".clinerules/off.md", Content: "DISABLED RULE", Enabled: false},
		{ID: "clinerules:.clinerules/empty.md", Source: rules.SourceClinerules, Name: ".clinerules/empty.md", Content: "  ", Enabled: true},
		{ID: "cursorrules:.cursorrules", Source: rules.SourceCursorrules, Name: ".cursorrules", Content: "Prefer functional components.", Enabled: true},
		{ID: "cursor-rules:.cursor/rules/db.mdc", Source: rules.SourceCursorDir, Name: ".cursor/rules/db.mdc", Content: "---\nglobs: db/**\n---\nUse migrations.", Enabled: true},
		{ID: "windsurfrules:.windsurfrules", Source: rules.SourceWindsurf, Name: ".windsurfrules", Content: "No new dependencies.", Enabled: true},
	}
}

type promptCase struct {
	name   string
	in     Input
	golden string
	// present and absent are substrings that must (not) appear.
	present, absent []string
}

func promptCases() []promptCase {
	act := baseInput()

	plan := baseInput()
	plan.Mode = "plan"

	mcp := baseInput()
	mcp.MCPServers = testServers()

	custom := baseInput()
	custom.PreferredLanguage = "Japanese"
	custom.CustomInstructions = "Explain changes briefly."
	custom.Rules = testRules()
	custom.IgnoreFileExists = true

	noBrowser := baseInput()
	noBrowser.Specs = withoutCategories(testSpecs(), tools.CategoryBrowser, tools.CategoryMCP)
	noBrowser.MCPServers = testServers() // configured, but the MCP tools are off
	noBrowser.FocusChainEnabled = false
	noBrowser.SupportsImages = false
	noBrowser.System.IDE = "Cairn CLI"

	native := baseInput()
	native.NativeTools = true

	return []promptCase{
		{
			name: "native", in: native, golden: "native.golden",
			present: []string{"function-calling interface", "- read_file", "4. Call tools only through function calling", "task_progress argument"},
			absent:  []string{"# Tool Use Formatting", "<read_file>", "Usage:", "</tool_name>", "<task_progress>", "# Tool Use Examples"},
		},
		{
			name: "act", in: act, golden: "act.golden",
			present: []string{"You are in ACT MODE now.", "AUTOMATIC TODO LIST MANAGEMENT", "browser_action drives a headless browser (900x600 pixels)", "------- SEARCH\n", "\n=======\n", "\n+++++++ REPLACE"},
			absent:  []string{"MCP SERVERS", "USER'S CUSTOM INSTRUCTIONS", "## Call an MCP tool"},
		},
		{
			name: "plan", in: plan, golden: "plan.golden",
			present: []string{"You are in PLAN MODE now."},
			absent:  []string{"You are in ACT MODE now."},
		},
		{
			name: "mcp", in: mcp, golden: "mcp.golden",
			present: []string{
				"MCP SERVERS", "## weather", `Input Schema: {"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"]}`,
				"- alerts: Active weather alerts.\n  Input Schema: {}", "weather://{city}/current (Current weather): Conditions right now.",
				"- weather://status (Status)\n", "unusable for now: github, memory.\n", "## Call an MCP tool",
			},
			absent: []string{"create_issue", "## github"},
		},
		{
			name: "rules_language", in: custom, golden: "rules_language.golden",
			present: []string{
				"USER'S CUSTOM INSTRUCTIONS", "in Japanese", "Explain changes briefly.", "# Global rules\n\n## go.md\n\nWrap errors with %w.",
				"# Workspace rules (.clinerules)\n\n## .clinerules/style.md\n\nUse two-space indentation.\n\n## .clinerules/testing.md",
				"## .cursor/rules/db.mdc", "## .windsurfrules", "# Ignore File",
			},
			absent: []string{"DISABLED RULE", ".clinerules/off.md", ".clinerules/empty.md"},
		},
		{
			name: "no_browser", in: noBrowser, golden: "no_browser.golden",
			present: []string{"IDE: Cairn CLI"},
			absent:  []string{"browser", "Browser", "MCP", "task_progress", "TODO LIST", "You can look at images"},
		},
	}
}

func TestBuildGolden(t *testing.T) {
	for _, tc := range promptCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Render(tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if again := render(t, tc.in); again != got {
				t.Error("Build differs from Render, or the output is not deterministic")
			}
			golden.File(t, filepath.Join("testdata", tc.golden), got)
			for _, s := range tc.present {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q", s)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(got, s) {
					t.Errorf("should not contain %q", s)
				}
			}
		})
	}
}

// TestEveryToolAndParamRendered checks that the tool list is generated from the specs: each
// offered tool gets its section and usage block, and each parameter its line and usage tag.
func TestEveryToolAndParamRendered(t *testing.T) {
	for _, tc := range promptCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.in)
			if tc.in.NativeTools {
				// The tools' descriptions and parameters travel as function definitions
				// (TestToolDefinitions); the prompt only names them.
				for _, s := range tc.in.Specs {
					if !strings.Contains(got, "\n- "+s.Name+"\n") {
						t.Errorf("tool %s is not named", s.Name)
					}
				}
				return
			}
			for _, s := range tc.in.Specs {
				for _, want := range []string{"\n## " + s.Name + "\nDescription: ", "\n<" + s.Name + ">\n", "\n</" + s.Name + ">"} {
					if !strings.Contains(got, want) {
						t.Errorf("tool %s: missing %q", s.Name, want)
					}
				}
				for _, p := range s.Params {
					kind := "(optional)"
					if p.Required {
						kind = "(required)"
					}
					line := "\n- " + p.Name + ": " + kind + " "
					tag := "\n<" + p.Name + ">" + p.Usage + "</" + p.Name + ">\n"
					if !strings.Contains(got, line) || !strings.Contains(got, tag) {
						t.Errorf("tool %s param %s: missing %q or %q", s.Name, p.Name, line, tag)
					}
				}
			}
		})
	}
}

// TestSectionOrder checks the top-level sections appear once each, in the documented order
// (docs/prompt.md, "The system prompt").
func TestSectionOrder(t *testing.T) {
	in := baseInput()
	in.MCPServers = testServers()
	in.Rules = testRules()
	got := render(t, in)
	want := []string{
		"You are Cairn", "TOOL USE", "AUTOMATIC TODO LIST MANAGEMENT", "MCP SERVERS", "EDITING FILES",
		"ACT MODE V.S. PLAN MODE", "CAPABILITIES", "RULES", "SYSTEM INFORMATION", "OBJECTIVE",
		"USER'S CUSTOM INSTRUCTIONS",
	}
	sections := strings.Split(got, sectionSeparator)
	if len(sections) != len(want) {
		t.Fatalf("%d sections, want %d", len(sections), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(sections[i], w) {
			t.Errorf("section %d starts %q, want %q", i, firstLine(sections[i]), w)
		}
	}
	for _, sub := range []string{"# Tools", "# Tool Use Examples", "# Tool Use Guidelines"} {
		if strings.Count(sections[1], "\n"+sub+"\n") != 1 {
			t.Errorf("TOOL USE should contain %q once", sub)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestExamplesOnlyForOfferedTools checks that examples never show a tool the model lacks.
func TestExamplesOnlyForOfferedTools(t *testing.T) {
	in := baseInput()
	in.Specs = []tools.Spec{testSpecs()[1], testSpecs()[12]} // read_file, attempt_completion
	got := render(t, in)
	tagRE := regexp.MustCompile(`(?m)^<([a-z_]+)>$`)
	offered := map[string]bool{"read_file": true, "attempt_completion": true, "tool_name": true}
	params := map[string]bool{}
	for _, s := range in.Specs {
		for _, p := range s.Params {
			params[p.Name] = true
		}
	}
	for _, m := range tagRE.FindAllStringSubmatch(got, -1) {
		if !offered[m[1]] && !params[m[1]] && m[1] != "task_progress" && m[1] != "thinking" {
			t.Errorf("prompt shows <%s>, which is not offered", m[1])
		}
	}
	for _, s := range []string{"replace_in_file", "write_to_file", "execute_command", "search_files", "list_files", "EDITING FILES"} {
		if strings.Contains(got, s) {
			t.Errorf("prompt mentions %s although it is not offered", s)
		}
	}
}

func TestCwdFallsBackToSystemCwd(t *testing.T) {
	in := baseInput()
	in.Cwd = ""
	in.System.Cwd = "/srv/app"
	got := render(t, in)
	if !strings.Contains(got, "The working directory is /srv/app.") {
		t.Error("RULES should use System.Cwd when Cwd is empty")
	}
}

// render is Render for tests: a template failure fails the test.
func render(tb testing.TB, in Input) string {
	tb.Helper()
	out, err := Render(in)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
