// Package slash turns a slash command at the start of a user message into explicit
// instructions for the model (docs/prompt.md, "Mentions, slash commands and rules").
//
// A command is the first word of the message after optional leading whitespace, followed by
// whitespace or the end, matched case-sensitively: the built-ins /newtask, /smol and /compact
// (condense), /newrule, /reportbug and /deep-planning, and the user's workflows, invoked as
// `/<file name>` (`/release.md`, or `/release` when no other workflow claims that name).
// Built-ins win over workflows. The command word is replaced by an
// `<explicit_instructions type="…">` preamble; the rest of the message follows it.
//
// The preambles are model-facing text and live in the embedded .md files of this folder.
package slash

import (
	"embed"
	"strings"
	"unicode"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/toolnames"
)

//go:embed instructions/*.md
var instructions embed.FS

// Command is a recognised slash command.
type Command struct {
	// Name is the command as written, with its `/`: "/smol", "/release.md".
	Name string
	// Type is the explicit_instructions type: new_task, condense, new_rule, report_bug,
	// deep-planning, or a workflow's file name.
	Type string
	// Workflow is the workflow invoked, nil for a built-in.
	Workflow *rules.Workflow
}

// builtins maps a built-in command to its instruction type; the preamble is
// instructions/<type>.md.
var builtins = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"/newtask":       toolnames.NewTask,
		"/smol":          toolnames.Condense,
		"/compact":       toolnames.Condense,
		"/newrule":       toolnames.NewRule,
		"/reportbug":     "report_bug",
		"/deep-planning": "deep-planning",
	}
}}

// Parse finds the command word of text: the first word after optional leading whitespace,
// when it starts with `/` and has at least one more character. rest is the text after the
// word with the whitespace that separated them removed. Parse is syntactic only; Expand
// decides whether the word names a command.
func Parse(text string) (name, rest string, ok bool) {
	s := strings.TrimLeftFunc(text, unicode.IsSpace)
	if !strings.HasPrefix(s, "/") {
		return "", "", false
	}
	end := len(s)
	for i, r := range s {
		if unicode.IsSpace(r) {
			end = i
			break
		}
	}
	if end < 2 {
		return "", "", false
	}
	return s[:end], strings.TrimLeftFunc(s[end:], unicode.IsSpace), true
}

// Expand replaces a slash command at the start of text with its instructions. workflows are
// the user's workflows as rules.Workflows lists them (disabled ones are skipped). Without a
// command, text comes back unchanged and ok is false.
func Expand(text string, workflows []rules.Workflow) (string, Command, bool) {
	name, rest, ok := Parse(text)
	if !ok {
		return text, Command{}, false
	}
	cmd, body, ok := lookup(name, workflows)
	if !ok {
		return text, Command{}, false
	}
	out := `<explicit_instructions type="` + cmd.Type + `">` + "\n" + strings.TrimSpace(body) + "\n</explicit_instructions>"
	if rest != "" {
		out += "\n\n" + rest
	}
	return out, cmd, true
}

// lookup resolves a command word to its command and instruction text.
func lookup(name string, workflows []rules.Workflow) (Command, string, bool) {
	if typ, ok := builtins.Get()[name]; ok {
		body, err := instructions.ReadFile("instructions/" + typ + ".md")
		if err != nil {
			// Every built-in has a file; the tests check it.
			return Command{}, "", false
		}
		return Command{Name: name, Type: typ}, string(body), true
	}
	file := name[1:]
	var loose *rules.Workflow
	for i := range workflows {
		w := &workflows[i]
		if !w.Enabled {
			continue
		}
		if w.Name == file {
			return Command{Name: name, Type: w.Name, Workflow: w}, w.Content, true
		}
		if loose == nil && strings.TrimSuffix(w.Name, ".md") == file && strings.HasSuffix(w.Name, ".md") {
			loose = w
		}
	}
	if loose != nil {
		return Command{Name: name, Type: loose.Name, Workflow: loose}, loose.Content, true
	}
	return Command{}, "", false
}
