package slash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/rules"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, text, cmd, rest string
		ok                    bool
	}{
		{"empty", "", "", "", false},
		{"plain text", "fix the bug", "", "", false},
		{"command alone", "/smol", "/smol", "", true},
		{"command and text", "/newtask carry on with the tests", "/newtask", "carry on with the tests", true},
		{"leading whitespace", " \n\t/newtask  go", "/newtask", "go", true},
		{"newline after", "/newtask\nsecond line", "/newtask", "second line", true},
		{"slash alone", "/", "", "", false},
		{"slash then space", "/ x", "", "", false},
		{"not first word", "please /newtask", "", "", false},
		{"path-like word", "/usr/bin/env is missing", "/usr/bin/env", "is missing", true},
		{"punctuation glued", "/newtask, now", "/newtask,", "now", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, rest, ok := Parse(tt.text)
			if cmd != tt.cmd || rest != tt.rest || ok != tt.ok {
				t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.text, cmd, rest, ok, tt.cmd, tt.rest, tt.ok)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	workflows := []rules.Workflow{
		{Name: "release.md", Content: "Tag the release and push it.", Enabled: true},
		{Name: "deploy", Content: "Run make deploy.", Enabled: true},
		{Name: "off.md", Content: "Disabled.", Enabled: false},
		{Name: "smol", Content: "A workflow that a built-in hides.", Enabled: true},
		{Name: "Review.md", Content: "Review carefully.", Enabled: true},
	}
	tests := []struct {
		name, text string
		cmd, typ   string // empty cmd: no command
		body       string // a substring of the preamble
		rest       string // the text after the preamble
	}{
		{name: "newtask", text: "/newtask", cmd: "/newtask", typ: "new_task", body: "new_task tool"},
		{name: "newtask with text", text: "/newtask focus on the parser", cmd: "/newtask", typ: "new_task", body: "new_task tool", rest: "focus on the parser"},
		{name: "smol", text: "/smol", cmd: "/smol", typ: "condense", body: "condense tool"},
		{name: "compact", text: "  /compact keep the API notes", cmd: "/compact", typ: "condense", body: "condense tool", rest: "keep the API notes"},
		{name: "newrule", text: "/newrule about tests", cmd: "/newrule", typ: "new_rule", body: ".cairnrules/", rest: "about tests"},
		{name: "reportbug", text: "/reportbug it crashed", cmd: "/reportbug", typ: "report_bug", body: "bug report", rest: "it crashed"},
		{name: "deep-planning", text: "/deep-planning add OAuth", cmd: "/deep-planning", typ: "deep-planning", body: "implementation_plan.md", rest: "add OAuth"},
		{name: "workflow by file name", text: "/release.md v1.2", cmd: "/release.md", typ: "release.md", body: "Tag the release", rest: "v1.2"},
		{name: "workflow without .md", text: "/release", cmd: "/release", typ: "release.md", body: "Tag the release"},
		{name: "workflow without extension", text: "/deploy now", cmd: "/deploy", typ: "deploy", body: "make deploy", rest: "now"},
		{name: "built-in beats workflow", text: "/smol", cmd: "/smol", typ: "condense", body: "condense tool"},
		{name: "disabled workflow", text: "/off.md"},
		{name: "case-sensitive built-in", text: "/NewTask"},
		{name: "case-sensitive workflow", text: "/review.md"},
		{name: "longer word", text: "/newtaskplease"},
		{name: "unknown", text: "/frobnicate the thing"},
		{name: "not at start", text: "do /newtask"},
		{name: "glued punctuation", text: "/smol."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cmd, ok := Expand(tt.text, workflows)
			if tt.cmd == "" {
				if ok || got != tt.text {
					t.Fatalf("Expand(%q) = %q, %+v; want no command and the text unchanged", tt.text, got, cmd)
				}
				return
			}
			if !ok || cmd.Name != tt.cmd || cmd.Type != tt.typ {
				t.Fatalf("Expand(%q): command %+v ok=%v; want %s of type %s", tt.text, cmd, ok, tt.cmd, tt.typ)
			}
			head := `<explicit_instructions type="` + tt.typ + "\">\n"
			if !strings.HasPrefix(got, head) {
				t.Errorf("output does not open with %q:\n%s", head, got)
			}
			pre, after, found := strings.Cut(got, "\n</explicit_instructions>")
			if !found {
				t.Fatalf("no closing tag:\n%s", got)
			}
			if !strings.Contains(pre, tt.body) {
				t.Errorf("preamble lacks %q:\n%s", tt.body, pre)
			}
			if strings.Contains(got, tt.cmd+" ") || strings.HasSuffix(got, tt.cmd) {
				t.Errorf("the command word must be gone:\n%s", got)
			}
			wantAfter := ""
			if tt.rest != "" {
				wantAfter = "\n\n" + tt.rest
			}
			if after != wantAfter {
				t.Errorf("after the preamble: %q, want %q", after, wantAfter)
			}
		})
	}
}

// TestBuiltinFiles checks that every built-in has its instruction file and no file is orphaned.
func TestBuiltinFiles(t *testing.T) {
	types := map[string]bool{}
	for name, typ := range builtins.Get() {
		types[typ] = true
		if _, err := instructions.ReadFile("instructions/" + typ + ".md"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	entries, err := instructions.ReadDir("instructions")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !types[strings.TrimSuffix(e.Name(), ".md")] {
			t.Errorf("instructions/%s belongs to no command", e.Name())
		}
	}
}

// TestWorkflowsFromDisk runs real workflow folders through rules.Workflows: local
// .cairnrules and .clinerules workflows and a global one are all commands.
func TestWorkflowsFromDisk(t *testing.T) {
	root, global := t.TempDir(), t.TempDir()
	write := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, ".clinerules", "workflows", "release.md"), "Cline release steps.")
	write(filepath.Join(root, ".cairnrules", "workflows", "lint.md"), "Run the linters.")
	write(filepath.Join(global, "standup.md"), "Summarise yesterday's commits.")
	wfs, err := rules.Workflows(root, global, nil)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{"/release.md": "Cline release steps.", "/lint": "Run the linters.",
		"/standup.md please": "Summarise yesterday's commits."} {
		got, _, ok := Expand(text, wfs)
		if !ok || !strings.Contains(got, want) {
			t.Errorf("Expand(%q) = %q, %v; want the workflow text %q", text, got, ok, want)
		}
	}
}
