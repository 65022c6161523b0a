package agent

import (
	"regexp"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/edit"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/search"
)

// pathTools are the tools whose `path` parameter names a file or folder the task works on.
// execute_command is not among them: a command line names no path reliably.
var pathTools = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		readfile.Name:    true,
		edit.WriteName:   true,
		edit.ReplaceName: true,
		listfiles.Name:   true,
		search.Name:      true,
		codedefs.Name:    true,
	}
}}

// mentionTag finds the blocks an @/path mention expands to (core/mentions), at the start of a
// line, as the user's text carries them.
var mentionTag = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<(?:file|folder)_content path="([^"]*)">`) }}

// touchedPaths lists the paths the task has touched so far, in order of first touch: the
// `path` of every tool call among pathTools in the assistant's messages, whatever the call's
// outcome, and every @file or @folder mention in the user's messages (a leading "/" means the
// workspace root). Paths are as written: relative to the workspace root or absolute.
func touchedPaths(history []llm.Message) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p = strings.TrimSpace(p); p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	var g parse.Grammar
	for _, m := range history {
		for _, c := range m.Content {
			if c.Type != llm.ContentText {
				continue
			}
			switch m.Role {
			case llm.RoleAssistant:
				if !strings.Contains(c.Text, "<") {
					continue
				}
				if g == nil {
					g = parse.DefaultGrammar()
				}
				for _, b := range parse.Parse(g, c.Text) {
					if b.Type == parse.ToolUse && pathTools.Get()[b.Name] {
						add(b.Params["path"])
					}
				}
			case llm.RoleUser:
				for _, sub := range mentionTag.Get().FindAllStringSubmatch(c.Text, -1) {
					add(strings.TrimPrefix(strings.ReplaceAll(sub[1], "&quot;", `"`), "/"))
				}
			}
		}
	}
	return out
}
