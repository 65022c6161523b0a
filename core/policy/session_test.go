package policy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/tools"
)

// grants are the "always" answers of a session as ACP writes them (server/acp, sessionRules).
var grants = []config.SessionRule{
	{Command: "npm test"}, {Command: "npm publish"}, {Command: "git commit"}, {Files: "**", Tool: "edit"},
	{MCP: "github/list_issues"}, {Web: "*"},
}

// TestSessionLayer: the session's allow rules count as allow rules of a file do, below every
// file: a deny or ask of the managed or workspace layer still wins.
func TestSessionLayer(t *testing.T) {
	files, root := layers(t,
		`{"deny": [{"command": "npm publish"}]}`,
		``,
		`{"ask": [{"files": "migrations/**"}], "deny": [{"command": "git commit"}, {"web": "*.pastebin.com"}]}`)
	s := files.WithSession("T1", nil, grants)
	defaults := config.Default().AutoApprove
	edit := func(rel string) tools.Approval {
		return tools.Approval{Category: tools.CategoryEdit, Path: filepath.Join(root, filepath.FromSlash(rel)), Inside: true}
	}
	cases := []struct {
		name  string
		req   tools.Approval
		want  Verdict
		layer string
		line  string
	}{
		{"a command grant runs that command", cmd("npm test -- --watch"), Run, LayerSession,
			`run — allow rule command "npm test" of this session (task T1): allowed`},
		{"another subcommand is still asked", cmd("npm install left-pad"), Ask, "", ""},
		{"a managed deny beats the session", cmd("npm publish"), Deny, LayerManaged, ""},
		{"a workspace deny beats the session", cmd("git commit -m x"), Deny, LayerWorkspace, ""},
		{"the deny list still asks", cmd("npm test && rm -rf build"), Ask, "", `on the deny list ("rm -rf", commandDenyList)`},
		{"an edit grant edits in the workspace", edit("src/a.go"), Run, LayerSession,
			`run — allow rule edit files "**" of this session (task T1): allowed`},
		{"a workspace ask beats the edit grant", edit("migrations/001.sql"), Ask, LayerWorkspace, ""},
		{"the edit grant stays in the workspace", tools.Approval{Category: tools.CategoryEdit, Path: filepath.Join(filepath.Dir(root), "x")}, Ask, "", ""},
		{"an MCP tool grant", tools.Approval{Category: tools.CategoryMCP, MCPServer: "github", MCPTool: "list_issues"}, Run, LayerSession, ""},
		{"another MCP tool is asked", tools.Approval{Category: tools.CategoryMCP, MCPServer: "github", MCPTool: "merge"}, Ask, "", ""},
		{"the browser grant opens public pages", tools.Approval{Category: tools.CategoryBrowser, Text: "https://go.dev/doc"}, Run, LayerSession,
			`run — allow rule web "*" of this session (task T1): allowed`},
		{"a workspace web deny beats it", tools.Approval{Category: tools.CategoryBrowser, Text: "https://x.pastebin.com/1"}, Deny, LayerWorkspace, ""},
		{"pages on this machine keep their own setting", tools.Approval{Category: tools.CategoryLocal, Text: "http://localhost:3000/"}, Ask, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Decide(Input{Settings: defaults, Approval: c.req})
			lines := strings.Join(res.Lines(), "\n")
			if res.Verdict != c.want {
				t.Fatalf("got %s, want %s:\n%s", res.Verdict, c.want, lines)
			}
			if c.layer != "" && res.Trail[0].Layer != c.layer {
				t.Errorf("decided by layer %q, want %q:\n%s", res.Trail[0].Layer, c.layer, lines)
			}
			if !strings.Contains(lines, c.line) {
				t.Errorf("want %q in:\n%s", c.line, lines)
			}
		})
	}
	if files.WithSession("T1", nil, nil) != files {
		t.Error("no grants: the files' policy as it is")
	}
	if got := len(files.Layers); got != 2 {
		t.Errorf("WithSession changed the files' layers: %d", got)
	}
}

// TestSessionLayerWithoutFiles: without policy files the session layer alone decides above the
// settings, its files globs taken from the task's roots.
func TestSessionLayerWithoutFiles(t *testing.T) {
	var none *Set
	s := none.WithSession("T2", []string{"/w"}, []config.SessionRule{{Files: "**", Tool: "read"}, {Files: "/**", Tool: "edit"}})
	for _, req := range []tools.Approval{
		{Category: tools.CategoryRead, Path: "/w/a/b.go", Inside: true},
		{Category: tools.CategoryEdit, Path: "/elsewhere/c.txt"},
	} {
		if res := s.Decide(Input{Settings: config.Default().AutoApprove, Approval: req}); res.Verdict != Run {
			t.Errorf("%s: %s", req.Path, strings.Join(res.Lines(), "\n"))
		}
	}
	if res := s.Decide(Input{Settings: config.Default().AutoApprove, Approval: tools.Approval{Category: tools.CategoryRead, Path: "/elsewhere/c.txt"}}); res.Verdict != Ask {
		t.Errorf("a read outside the roots: %s", strings.Join(res.Lines(), "\n"))
	}
}
