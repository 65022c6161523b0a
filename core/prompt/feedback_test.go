package prompt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"time"
)

// TestFeedbackGolden renders every loop note into one golden file, so wording changes show
// up in review as a single diff.
func TestFeedbackGolden(t *testing.T) {
	notes := []struct{ name, text string }{
		{"NoToolsUsed", NoToolsUsed()},
		{"MissingParam", MissingParam("write_to_file", "content")},
		{"TooManyMistakes/with feedback", TooManyMistakes("  try reading the file first \n")},
		{"TooManyMistakes/without feedback", TooManyMistakes("")},
		{"ToolDenied", ToolDenied()},
		{"ToolError", ToolError("open src/x.go: permission denied\n")},
		{"ResumeNote/act unfinished", ResumeNote(3*time.Hour, false, "act")},
		{"ResumeNote/act completed", ResumeNote(2*24*time.Hour, true, "act")},
		{"ResumeNote/plan", ResumeNote(5*time.Minute, false, "plan")},
		{"SwitchedToAct", SwitchedToAct()},
		{"FocusChainReminder/first", FocusChainReminder("", true)},
		{"FocusChainReminder/update", FocusChainReminder("- [x] Read the code\n- [ ] Fix the bug\n", false)},
		{"PlanModeRefusal", PlanModeRefusal("execute_command")},
		{"EditFailedRepeatedly", EditFailedRepeatedly("src/app.ts")},
		{"MultipleToolsNote", MultipleToolsNote()},
		{"Interrupted", Interrupted()},
	}
	var b strings.Builder
	for _, n := range notes {
		if strings.HasPrefix(n.text, "[") && strings.HasSuffix(n.text, "]") && !strings.Contains(n.text, " ") {
			t.Errorf("%s: template failed to render: %q", n.name, n.text)
		}
		if n.text != strings.TrimSpace(n.text) || n.text == "" {
			t.Errorf("%s: empty or not trimmed: %q", n.name, n.text)
		}
		b.WriteString("#### " + n.name + "\n" + n.text + "\n\n")
	}
	golden.File(t, filepath.Join("testdata", "feedback.golden"), b.String())
}

func TestToolErrorExact(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"boom", "The tool execution failed with the following error:\n<error>\nboom\n</error>"},
		{"\nline one\nline two\n\n", "The tool execution failed with the following error:\n<error>\nline one\nline two\n</error>"},
		{"a <b> & c", "The tool execution failed with the following error:\n<error>\na <b> & c\n</error>"},
	}
	for _, tt := range tests {
		if got := ToolError(tt.msg); got != tt.want {
			t.Errorf("ToolError(%q) =\n%q\nwant\n%q", tt.msg, got, tt.want)
		}
	}
}

func TestFeedbackContent(t *testing.T) {
	tests := []struct {
		name    string
		got     string
		present []string
		absent  []string
	}{
		{"no tools: format and ways out", NoToolsUsed(), []string{"<tool_name>", "<parameter_name>value</parameter_name>", "attempt_completion", "ask_followup_question"}, nil},
		{"missing param names both", MissingParam("read_file", "path"), []string{"'path'", "read_file", "<tool_name>"}, nil},
		{"mistakes quote feedback", TooManyMistakes("use go test"), []string{"<feedback>\nuse go test\n</feedback>"}, nil},
		{"mistakes without feedback has no block", TooManyMistakes(" "), nil, []string{"<feedback>"}},
		{"resume just now", ResumeNote(10*time.Second, false, "act"), []string{"interrupted just now", "repeat the step"}, []string{"PLAN MODE"}},
		{"resume one minute", ResumeNote(time.Minute+time.Second, false, "act"), []string{"interrupted 1 minute ago"}, nil},
		{"resume minutes", ResumeNote(59*time.Minute, false, "act"), []string{"interrupted 59 minutes ago"}, nil},
		{"resume one hour", ResumeNote(90*time.Minute, false, "act"), []string{"interrupted 1 hour ago"}, nil},
		{"resume days", ResumeNote(49*time.Hour, false, "act"), []string{"interrupted 2 days ago"}, nil},
		{"resume completed", ResumeNote(time.Hour, true, "act"), []string{"was completed and last active 1 hour ago"}, []string{"repeat the step", "may or may not"}},
		{"resume plan", ResumeNote(time.Hour, false, "PLAN"), []string{"PLAN MODE", "plan_mode_respond"}, []string{"repeat the step"}},
		{"focus first", FocusChainReminder("ignored", true), []string{"task_progress", "- [ ] "}, []string{"ignored"}},
		{"focus update shows list", FocusChainReminder("- [ ] a\n- [x] b", false), []string{"- [ ] a\n- [x] b", "task_progress", "`- [x]`"}, nil},
		{"plan refusal names tool", PlanModeRefusal("write_to_file"), []string{"write_to_file", "PLAN MODE", "ACT MODE", "plan_mode_respond"}, nil},
		{"edit failed suggests both", EditFailedRepeatedly("a/b.go"), []string{"a/b.go", "read_file", "write_to_file"}, nil},
		{"multiple tools", MultipleToolsNote(), []string{"first tool call", "not run"}, nil},
		{"switched", SwitchedToAct(), []string{"ACT MODE"}, nil},
		{"denied", ToolDenied(), []string{"rejected"}, nil},
		{"interrupted", Interrupted(), []string{"interrupted"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range tt.present {
				if !strings.Contains(tt.got, s) {
					t.Errorf("missing %q in:\n%s", s, tt.got)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(tt.got, s) {
					t.Errorf("unexpected %q in:\n%s", s, tt.got)
				}
			}
		})
	}
}
