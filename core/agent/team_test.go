package agent

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/task"
)

func assistant(text string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(text)}}
}

func user(text string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text(text)}}
}

func TestTouchedPaths(t *testing.T) {
	tests := []struct {
		name    string
		history []llm.Message
		want    []string
	}{
		{name: "empty"},
		{
			name: "every path tool counts, in order, once",
			history: []llm.Message{
				user("<task>\nfix it\n</task>"),
				assistant("Looking.\n<read_file>\n<path>web/api/h.go</path>\n</read_file>"),
				user("[read_file for 'web/api/h.go'] Result:\npackage h"),
				assistant("<list_files>\n<path>docs</path>\n</list_files>"),
				assistant("<search_files>\n<path>src</path>\n<regex>x</regex>\n</search_files>"),
				assistant("<list_code_definition_names>\n<path>lib</path>\n</list_code_definition_names>"),
				assistant("<write_to_file>\n<path>new.go</path>\n<content>\n<path>not/this</path>\n</content>\n</write_to_file>"),
				assistant("<replace_in_file>\n<path>web/api/h.go</path>\n<diff>\nx\n</diff>\n</replace_in_file>"),
			},
			want: []string{"web/api/h.go", "docs", "src", "lib", "new.go"},
		},
		{
			name: "commands and other tools name no path",
			history: []llm.Message{
				assistant("<execute_command>\n<command>cat secret/x.go</command>\n<requires_approval>false</requires_approval>\n</execute_command>"),
				assistant("<attempt_completion>\n<result>done with a/b.go</result>\n</attempt_completion>"),
			},
		},
		{
			name: "file and folder mentions in user text, not in tool results' middle of a line",
			history: []llm.Message{
				user("<task>\nsee 'web/a.ts' (see below for file content)\n</task>\n\n<file_content path=\"/web/a.ts\">\nx\n</file_content>\n\n<folder_content path=\"/docs/\">\n</folder_content>"),
				user("quoted: <file_content path=\"/not/a/mention\">"),
				assistant("<file_content path=\"/said/by/model\">"),
			},
			want: []string{"web/a.ts", "docs/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := touchedPaths(tt.history); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The prompt carries the AGENTS.md nearest to the files the task touched, conditional rules
// whose globs they match, and the usable skills; use_skill is offered only with skills, and
// skill toggles are honoured by the next prompt.
func TestTeamFilesReachThePrompt(t *testing.T) {
	root, global := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "ROOT GUIDE")
	write(t, filepath.Join(root, "web", "AGENTS.md"), "WEB GUIDE")
	write(t, filepath.Join(root, "web", "api", "AGENTS.md"), "API GUIDE")
	write(t, filepath.Join(root, ".clinerules", "go.md"), "---\npaths: [\"**/*.go\"]\n---\nGO RULE")
	write(t, filepath.Join(root, ".cairn", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release.\n---\nSteps.")
	write(t, filepath.Join(global, "broken", "SKILL.md"), "no frontmatter")
	env := newEnv()
	a := New(env, Config{GlobalRulesDir: filepath.Join(t.TempDir(), "none"), GlobalSkillsDir: global})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Turns.Close(); err != nil {
			t.Error(err)
		}
	})

	check := func(name string, history []llm.Message, present, absent []string) {
		t.Helper()
		sys := d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, history)
		for _, s := range present {
			if !strings.Contains(sys, s) {
				t.Errorf("%s: prompt lacks %q", name, s)
			}
		}
		for _, s := range absent {
			if strings.Contains(sys, s) {
				t.Errorf("%s: prompt has %q", name, s)
			}
		}
	}
	check("first request", nil,
		[]string{"ROOT GUIDE", "SKILLS", "- release: Cut a release.", "## use_skill"},
		[]string{"WEB GUIDE", "API GUIDE", "GO RULE", "broken"})
	check("after reading a Go file under web/api", []llm.Message{
		assistant("<read_file>\n<path>web/api/h.go</path>\n</read_file>"),
	}, []string{"ROOT GUIDE", "API GUIDE", "GO RULE", "files under web/api/"}, []string{"WEB GUIDE"})
	check("after a mention under web", []llm.Message{
		user("<task>\nx\n</task>\n\n<file_content path=\"/web/index.html\">\n</file_content>"),
	}, []string{"ROOT GUIDE", "WEB GUIDE"}, []string{"API GUIDE", "GO RULE"})

	env.set(func(s *config.Settings) { s.SkillToggles = map[string]bool{"cairn:.cairn/skills/release": false} })
	check("skill switched off", nil, []string{"ROOT GUIDE"}, []string{"SKILLS", "release", "## use_skill"})
	if _, ok := d.Registry.Get("use_skill"); !ok {
		t.Error("use_skill should stay registered: a skill may be switched on again mid-task")
	}
}
