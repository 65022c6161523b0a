package modes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

func slugs(s Set) string {
	var out []string
	for _, m := range s.Modes {
		out = append(out, m.Slug)
	}
	return strings.Join(out, ",")
}

func TestLoadModeFiles(t *testing.T) {
	s := Load([]string{filepath.Join("testdata", "files")}, filepath.Join("testdata", "global"))
	if got, want := slugs(s), "act,plan,orchestrator,docs,helper"; got != want {
		t.Fatalf("modes = %s, want %s", got, want)
	}
	docs, _ := s.Get("docs")
	if docs.Name != "Docs Writer" || docs.Description != "Writing and editing the project's documentation." ||
		docs.GroupNames() != "read, edit" || docs.EditPattern != `\.md$` || !strings.HasPrefix(docs.Instructions, "Write plain") ||
		docs.Source != filepath.Join("testdata", "files", ".cairn", "modes", "docs.md") {
		t.Fatalf("docs = %+v", docs)
	}
	if !docs.MayEdit("docs/a.md") || docs.MayEdit("main.go") {
		t.Fatal("the docs mode's pattern does not decide its edits")
	}
	// Every bad file is named once, and the good ones still load.
	want := map[string]string{
		"broken.md":   `unknown group "teleport"`,
		"badregex.md": "is not a regular expression",
		"act.md":      "built-in mode",
		"nofront.md":  "no front matter",
	}
	if len(s.Problems) != len(want) {
		t.Fatalf("problems = %v", s.Problems)
	}
	for _, p := range s.Problems {
		if w, ok := want[filepath.Base(p.Path)]; !ok || !strings.Contains(p.Err, w) {
			t.Errorf("problem %s, want %q", p, w)
		}
	}
}

func TestLoadRooModes(t *testing.T) {
	for _, tc := range []struct {
		name, dir, pattern, note string
		modes                    string
		problems                 int
	}{
		{name: "yaml", dir: "roo-yaml", pattern: `\.(md|mdx)$`, note: "Markdown files only",
			modes: "act,plan,orchestrator,docs-writer,reviewer", problems: 1},
		{name: "json", dir: "roo-json", pattern: `\.md$`, note: "Markdown files only",
			modes: "act,plan,orchestrator,docs-writer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Load([]string{filepath.Join("testdata", tc.dir)}, "")
			if got := slugs(s); got != tc.modes {
				t.Fatalf("modes = %s, want %s", got, tc.modes)
			}
			if len(s.Problems) != tc.problems {
				t.Fatalf("problems = %v", s.Problems)
			}
			m, _ := s.Get("docs-writer")
			if m.Role != "You are a technical writer." || m.Description != "Use this mode for documentation." ||
				m.EditPattern != tc.pattern || m.EditPatternNote != tc.note || !m.Has(GroupEdit) || !m.Has(GroupRead) {
				t.Fatalf("docs-writer = %+v", m)
			}
			if m.MayEdit("main.go") || !m.MayEdit("README.md") {
				t.Fatal("fileRegex is not applied")
			}
		})
	}
}

func TestBrokenRooFileIsOneProblem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RooFile), []byte("customModes: [unclosed"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Load([]string{dir}, "")
	if slugs(s) != "act,plan,orchestrator" || len(s.Problems) != 1 || !strings.Contains(s.Problems[0].Err, "not a valid modes file") {
		t.Fatalf("modes %s, problems %v", slugs(s), s.Problems)
	}
}

func TestGate(t *testing.T) {
	s := Load([]string{filepath.Join("testdata", "files")}, "")
	docs, _ := s.Get("docs")
	orch, _ := s.Get(Orchestrator)
	spec := func(name string, c tools.Category) tools.Spec { return tools.Spec{Name: name, Category: c} }
	for _, tc := range []struct {
		mode Mode
		spec tools.Spec
		want bool
	}{
		{docs, spec(toolnames.ReadFile, tools.CategoryRead), true},
		{docs, spec(toolnames.WriteToFile, tools.CategoryEdit), true},
		{docs, spec(toolnames.ExecuteCommand, tools.CategoryCommand), false},
		{docs, spec(toolnames.BrowserAction, tools.CategoryBrowser), false},
		{docs, spec(toolnames.Delegate, tools.CategoryInteract), false},
		{docs, spec(toolnames.AttemptCompletion, tools.CategoryInteract), true},
		{docs, spec(toolnames.AskFollowupQuestion, tools.CategoryInteract), true},
		{docs, spec(toolnames.SwitchMode, tools.CategoryInteract), true},
		{orch, spec(toolnames.Delegate, tools.CategoryInteract), true},
		{orch, spec(toolnames.ReadFile, tools.CategoryRead), true},
		{orch, spec(toolnames.ReplaceInFile, tools.CategoryEdit), false},
		{orch, spec(toolnames.ExecuteCommand, tools.CategoryCommand), false},
	} {
		t.Run(tc.mode.Slug+"/"+tc.spec.Name, func(t *testing.T) {
			if got := tc.mode.Offers(tc.spec); got != tc.want {
				t.Fatalf("Offers = %v, want %v", got, tc.want)
			}
		})
	}
	if r := docs.EditRefusal("main.go"); !strings.Contains(r, `\.md$`) || !strings.Contains(r, "main.go") || !strings.Contains(r, "Markdown files only") {
		t.Fatalf("edit refusal = %q", r)
	}
	if r := docs.EditRefusal("docs/guide.md"); r != "" {
		t.Fatalf("a matching path is refused: %q", r)
	}
	if r := docs.ToolRefusal(toolnames.ExecuteCommand); !strings.Contains(r, "execute_command") || !strings.Contains(r, "read, edit") {
		t.Fatalf("tool refusal = %q", r)
	}
}

// A mode file may name a model and a reasoning effort; a bad effort, a model id with spaces
// and a key the loader does not know are each a problem named for their file, and the other
// modes still load.
func TestModeModelAndEffort(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	files := map[string]string{
		"review.md":  "---\ngroups: [read]\nmodel: gpt-5-mini\nreasoningEffort: High\n---\nReview.\n",
		"plain.md":   "---\ngroups: [read]\n---\nRead.\n",
		"effort.md":  "---\ngroups: [read]\nreasoningEffort: extreme\n---\n",
		"spaces.md":  "---\ngroups: [read]\nmodel: gpt 5\n---\n",
		"unknown.md": "---\ngroups: [read]\ntemperature: 0.2\n---\n",
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := Load([]string{root}, "")
	if got, want := slugs(s), "act,plan,orchestrator,plain,review"; got != want {
		t.Fatalf("modes = %s, want %s", got, want)
	}
	review, _ := s.Get("review")
	if review.Model != "gpt-5-mini" || review.ReasoningEffort != "high" {
		t.Errorf("review = model %q effort %q", review.Model, review.ReasoningEffort)
	}
	if plain, _ := s.Get("plain"); plain.Model != "" || plain.ReasoningEffort != "" {
		t.Errorf("plain = model %q effort %q", plain.Model, plain.ReasoningEffort)
	}
	want := map[string]string{
		"effort.md":  `reasoningEffort "extreme"`,
		"spaces.md":  `model "gpt 5"`,
		"unknown.md": "field temperature not found",
	}
	if len(s.Problems) != len(want) {
		t.Fatalf("problems = %v", s.Problems)
	}
	for _, p := range s.Problems {
		if w, ok := want[filepath.Base(p.Path)]; !ok || !strings.Contains(p.Err, w) {
			t.Errorf("problem %s, want %q", p, w)
		}
	}
}
