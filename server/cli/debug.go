package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/modes"

	"github.com/cairnhq/cairn/core/parse"
)

func debug(ctx context.Context, args []string, stdio IO) int {
	if len(args) < 1 {
		stdio.errf("cairn debug: parse | prompt | mentions | modes\n")
		return exitUsage
	}
	switch args[0] {
	case "parse":
		return debugParse(args[1:], stdio)
	case "prompt":
		return debugPrompt(ctx, args[1:], stdio)
	case "mentions":
		return debugMentions(ctx, args[1:], stdio)
	case "modes":
		return debugModes(args[1:], stdio)
	}
	stdio.errf("cairn debug: unknown subcommand %q\n", args[0])
	return exitUsage
}

// debugParse prints the parser's blocks for stdin as JSON; with --chunks stdin is a JSON array
// of chunks fed one by one.
func debugParse(args []string, stdio IO) int {
	fs := newFlags("debug parse", stdio)
	chunked := fs.Bool("chunks", false, "stdin is a JSON array of chunks")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	in, err := io.ReadAll(stdio.In)
	if err != nil {
		stdio.errf("cairn debug parse: %v\n", err)
		return exitFailure
	}
	p := parse.New(parse.DefaultGrammar())
	if *chunked {
		var chunks []string
		if err := json.Unmarshal(in, &chunks); err != nil {
			stdio.errf("cairn debug parse: --chunks wants a JSON array of strings: %v\n", err)
			return exitUsage
		}
		for _, c := range chunks {
			p.Feed(c)
		}
	} else {
		p.Feed(string(in))
	}
	blocks := p.End()
	if blocks == nil {
		blocks = []parse.Block{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(blocks); err != nil {
		stdio.errf("cairn debug parse: %v\n", err)
		return exitFailure
	}
	return stdio.emit(buf.String())
}

// debugPrompt prints the exact system prompt for DIR.
func debugPrompt(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("debug prompt", stdio)
	dirs := dirFlags(fs, false, "workspace directory")
	mode := fs.String("mode", "act", "act, plan or the slug of a mode the workspace has (docs/modes.md)")
	dataFlag := fs.String("data-dir", "", "data directory (for its MCP servers)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	root, err := filepath.Abs(*dirs.one())
	if err != nil {
		stdio.errf("cairn debug prompt: %v\n", err)
		return exitUsage
	}
	var sf settingsFlags
	s, err := sf.settings()
	if err != nil {
		stdio.errf("cairn debug prompt: %v\n", err)
		return exitUsage
	}
	cfg := agent.DefaultConfig("", nil)
	if _, ok := modes.Load([]string{root}, cfg.GlobalModesDir).Get(*mode); !ok {
		stdio.errf("cairn debug prompt: no mode %q in %s (cairn debug modes lists them)\n", *mode, root)
		return exitUsage
	}
	// The MCP servers of the data dir, as a task started now would see them once they have
	// connected (the prompt lists only connected servers).
	hub := mcpHub(*dataFlag)
	defer closeHub(hub, stdio)
	wctx, cancel := context.WithTimeout(ctx, maxTimeout(hub))
	defer cancel()
	settle(wctx, hub)
	cfg.MCP = hub
	return stdio.emit(agent.SystemPrompt(root, *mode, "Cairn CLI", s, cfg) + "\n")
}

// debugModes lists the modes of DIR (docs/modes.md): one line each, then the files skipped.
func debugModes(args []string, stdio IO) int {
	fs := newFlags("debug modes", stdio)
	dirs := dirFlags(fs, false, "workspace directory")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	root, err := filepath.Abs(*dirs.one())
	if err != nil {
		stdio.errf("cairn debug modes: %v\n", err)
		return exitUsage
	}
	set := modes.Load([]string{root}, agent.DefaultConfig("", nil).GlobalModesDir)
	var b strings.Builder
	for _, m := range set.Modes {
		from := m.Source
		if m.BuiltIn() {
			from = "built-in"
		}
		edit := ""
		if m.EditPattern != "" {
			edit = " edits " + m.EditPattern
		}
		if m.Model != "" {
			edit += " model " + m.Model
		}
		if m.ReasoningEffort != "" {
			edit += " effort " + m.ReasoningEffort
		}
		fmt.Fprintf(&b, "%s\t%s\t[%s]%s\t%s\n", m.Slug, m.Name, m.GroupNames(), edit, from)
	}
	for _, p := range set.Problems {
		fmt.Fprintf(&b, "skipped: %s\n", p)
	}
	return stdio.emit(b.String())
}
