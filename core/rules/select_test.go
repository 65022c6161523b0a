package rules

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// agentsTree is a workspace with AGENTS.md files at three depths, a conditional rule with
// `paths:` and Cursor rules with globs / alwaysApply.
var agentsTree = map[string]string{
	"AGENTS.md":                      "root guide",
	"web/AGENTS.md":                  "web guide",
	"web/api/AGENTS.md":              "api guide",
	"web/api/handlers/h.go":          "package handlers",
	"docs/readme.md":                 "docs",
	".clinerules/general.md":         "always on",
	".clinerules/go.md":              "---\npaths:\n  - \"**/*.go\"\n---\nuse gofmt",
	".clinerules/web.md":             "---\npaths: web/**/*.ts, ./docs/*.md\n---\nweb rule",
	".cursor/rules/always.mdc":       "---\ndescription: x\nglobs: \"*.py\"\nalwaysApply: true\n---\nalways mdc",
	".cursor/rules/py.mdc":           "---\nglobs: \"*.py\"\nalwaysApply: false\n---\npython mdc",
	".cursor/rules/plain.mdc":        "---\ndescription: no globs\n---\nplain mdc",
	"node_modules/x/AGENTS.md":       "vendored guide",
	".hidden/AGENTS.md":              "hidden guide",
	"web/api/handlers/.keep":         "",
	"tools/scripts/deploy/run.sh":    "#!/bin/sh",
	"tools/scripts/deploy/AGENTS.md": "deploy guide",
}

func TestForTask(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, agentsTree)
	base := []string{"clinerules:.clinerules/general.md", "cursor-rules:.cursor/rules/always.mdc",
		"cursor-rules:.cursor/rules/plain.mdc"}
	tests := []struct {
		name    string
		touched []string
		toggles map[string]bool
		want    []string // besides base and the root AGENTS.md
	}{
		{name: "nothing touched: root AGENTS.md and unconditional rules only"},
		{name: "file deep in a nested folder: nearest AGENTS.md wins over its parent",
			touched: []string{"web/api/handlers/h.go"},
			want:    []string{"clinerules:.clinerules/go.md", "agents:web/api/AGENTS.md"}},
		{name: "file in the middle folder gets the middle AGENTS.md",
			touched: []string{"web/index.ts"},
			want:    []string{"clinerules:.clinerules/web.md", "agents:web/AGENTS.md"}},
		{name: "two files under different guides get both",
			touched: []string{"web/index.html", "web/api/x.txt"},
			want:    []string{"agents:web/AGENTS.md", "agents:web/api/AGENTS.md"}},
		{name: "a listed folder holding an AGENTS.md gets it",
			touched: []string{"web/api"},
			want:    []string{"agents:web/api/AGENTS.md"}},
		{name: "a folder above a nested AGENTS.md does not get it",
			touched: []string{"tools"}},
		{name: "absolute path inside the root counts",
			touched: []string{"ABS:tools/scripts/deploy/run.sh"},
			want:    []string{"agents:tools/scripts/deploy/AGENTS.md"}},
		{name: "a path outside the root counts for nothing",
			touched: []string{"/elsewhere/web/api/main.go", "../web/api/main.go"}},
		{name: "disabled nearest AGENTS.md hands over to the next one up",
			touched: []string{"web/api/handlers/h.go"},
			toggles: map[string]bool{"agents:web/api/AGENTS.md": false},
			want:    []string{"clinerules:.clinerules/go.md", "agents:web/AGENTS.md"}},
		{name: "basename glob matches at any depth, comma-separated globs with ./ prefix",
			touched: []string{"cmd/main.go", "docs/readme.md"},
			want:    []string{"clinerules:.clinerules/go.md", "clinerules:.clinerules/web.md"}},
		{name: "glob miss: a file of another kind",
			touched: []string{"web/style.css"},
			want:    []string{"agents:web/AGENTS.md"}},
		{name: "mdc globs without alwaysApply hit",
			touched: []string{"scripts/build.py"},
			want:    []string{"cursor-rules:.cursor/rules/py.mdc"}},
		{name: "hidden and node_modules folders hold no guides",
			touched: []string{".hidden/a.txt", "node_modules/x/index.js"}},
		{name: "root AGENTS.md switched off",
			toggles: map[string]bool{"agents:AGENTS.md": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var touched []string
			for _, p := range tt.touched {
				if rest, ok := strings.CutPrefix(p, "ABS:"); ok {
					p = filepath.Join(root, filepath.FromSlash(rest))
				}
				touched = append(touched, p)
			}
			rs, err := NewLoader().ForTask(root, "", tt.toggles, touched)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				got = append(got, r.ID)
			}
			want := append([]string(nil), base...)
			if on, ok := tt.toggles["agents:AGENTS.md"]; !ok || on {
				want = append(want, "agents:AGENTS.md")
			}
			want = append(want, tt.want...)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestLoadListsEveryAgentsFile(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, agentsTree)
	rs, err := Load(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var agents []string
	byID := map[string]Rule{}
	for _, r := range rs {
		byID[r.ID] = r
		if r.Source == SourceAgents {
			agents = append(agents, r.Name+"@"+r.Folder)
		}
	}
	want := []string{"AGENTS.md@", "tools/scripts/deploy/AGENTS.md@tools/scripts/deploy",
		"web/AGENTS.md@web", "web/api/AGENTS.md@web/api"}
	if !slices.Equal(agents, want) {
		t.Errorf("AGENTS.md files = %q, want %q", agents, want)
	}
	// Frontmatter is parsed and stripped.
	for id, want := range map[string]struct {
		content string
		paths   []string
	}{
		"clinerules:.clinerules/go.md":          {"use gofmt", []string{"**/*.go"}},
		"clinerules:.clinerules/web.md":         {"web rule", []string{"web/**/*.ts", "docs/*.md"}},
		"cursor-rules:.cursor/rules/always.mdc": {"always mdc", nil},
		"cursor-rules:.cursor/rules/py.mdc":     {"python mdc", []string{"*.py"}},
		"cursor-rules:.cursor/rules/plain.mdc":  {"plain mdc", nil},
	} {
		r := byID[id]
		if r.Content != want.content || !slices.Equal(r.Paths, want.paths) || r.Problem != "" {
			t.Errorf("%s: content %q paths %q problem %q, want %q %q", id, r.Content, r.Paths, r.Problem, want.content, want.paths)
		}
	}
}

func TestFrontmatterProblems(t *testing.T) {
	tests := []struct {
		name, text  string
		wantContent string
		wantPaths   []string
		wantProblem string
	}{
		{name: "no frontmatter", text: "just text", wantContent: "just text"},
		{name: "unclosed block stays text", text: "---\npaths: a\nbody", wantContent: "---\npaths: a\nbody"},
		{name: "empty block", text: "---\n---\nbody", wantContent: "body"},
		{name: "dashes inside the body", text: "---\npaths: a/*\n---\nx\n---\ny", wantContent: "x\n---\ny", wantPaths: []string{"a/*"}},
		{name: "bad yaml applies everywhere", text: "---\npaths: [a\n---\nbody", wantContent: "---\npaths: [a\n---\nbody",
			wantProblem: "frontmatter is not valid YAML"},
		{name: "map where globs belong", text: "---\npaths:\n  a: b\n---\nbody", wantContent: "---\npaths:\n  a: b\n---\nbody",
			wantProblem: "frontmatter is not valid YAML"},
		{name: "bad glob applies everywhere", text: "---\npaths: \"a/[b\"\n---\nbody", wantContent: "body",
			wantProblem: `glob "a/[b" is not valid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Rule{Content: tt.text}
			applyFrontmatter(&r, false)
			if r.Content != tt.wantContent || !slices.Equal(r.Paths, tt.wantPaths) || !strings.HasPrefix(r.Problem, tt.wantProblem) ||
				(tt.wantProblem == "") != (r.Problem == "") {
				t.Errorf("got content %q paths %q problem %q", r.Content, r.Paths, r.Problem)
			}
		})
	}
}
