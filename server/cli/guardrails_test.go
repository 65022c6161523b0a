package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

func cost(c float64) *llmtest.Usage {
	return &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10, Cost: &c}
}

// Without a terminal, a guard rail ends `cairn run` with exit 3 and its reason; a protected
// write is denied with the flag that would allow it.
func TestRunGuardRails(t *testing.T) {
	hook := llmtest.Turn{Text: "<write_to_file>\n<path>.git/hooks/pre-commit</path>\n<content>\n#!/bin/sh\n</content>\n</write_to_file>"}
	hook2 := llmtest.Turn{Text: "<write_to_file>\n<path>.git/hooks/pre-push</path>\n<content>\n#!/bin/sh\n</content>\n</write_to_file>"}
	hook3 := llmtest.Turn{Text: "<write_to_file>\n<path>.vscode/tasks.json</path>\n<content>\n{}\n</content>\n</write_to_file>"}
	list := func(c float64) llmtest.Turn {
		return llmtest.Turn{Text: "<list_files>\n<path>.</path>\n</list_files>", Usage: cost(c)}
	}
	cases := []struct {
		name   string
		turns  []llmtest.Turn
		args   []string
		code   int
		stderr []string
		hook   bool // .git/hooks/pre-commit exists afterwards
	}{
		{"protected write denied under edit", []llmtest.Turn{hook, {Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"denied"}}}},
			[]string{"--auto-approve", "read,edit,command"}, 0,
			[]string{"denied: edit of .git/hooks/pre-commit — protected: git runs", "--auto-approve edit,protected"}, false},
		{"protected write allowed with the category", []llmtest.Turn{hook, {Text: completion}},
			[]string{"--auto-approve", "edit,protected"}, 0, nil, true},
		{"request limit", []llmtest.Turn{list(0), {Text: "<list_files>\n<path>sub</path>\n</list_files>"}, {Text: completion}},
			[]string{"--auto-approve", "read", "--max-requests", "2"}, 3,
			[]string{"made 2 model requests, its limit of 2"}, false},
		{"cost limit", []llmtest.Turn{list(0.02), {Text: "<list_files>\n<path>sub</path>\n</list_files>", Usage: cost(0.02)}, {Text: completion}},
			[]string{"--auto-approve", "read", "--max-cost", "0.04"}, 3,
			[]string{"cost limit of $0.04 cannot be checked from prices", "has cost $0.0400, at or over its limit of $0.04"}, false},
		{"three denials in a row stop the run and say why", []llmtest.Turn{hook, hook2, hook3, {Text: completion}},
			[]string{"--auto-approve", "read,edit,command"}, 3,
			[]string{"stopped: 3 actions in a row were denied", "no one is at a terminal", "--auto-approve edit,protected"}, false},
		{"an action that runs in between starts the count again", []llmtest.Turn{hook, hook2, list(0), hook3, {Text: completion}},
			[]string{"--auto-approve", "read,edit,command"}, 0, nil, false},
		{"loop stop", []llmtest.Turn{list(0), list(0), list(0)},
			[]string{"--auto-approve", "read"}, 3,
			[]string{"repeating itself", "same call (list_files .) 3 times in a row"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs, ws := runCLI(t, llmtest.Script{Turns: c.turns}, append(c.args, "go")...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
			for _, want := range c.stderr {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
			}
			_, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit"))
			if exists := err == nil; exists != c.hook {
				t.Errorf("pre-commit exists = %v, want %v", exists, c.hook)
			}
		})
	}
}

func TestRunRejectsBadLimits(t *testing.T) {
	for _, args := range [][]string{{"--max-requests", "-1"}, {"--max-cost", "-0.5"}, {"--auto-approve", "edit,protectd"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errs, _ := runCLI(t, llmtest.Script{}, append(args, "go")...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (usage); stderr: %s", code, errs)
			}
		})
	}
}
