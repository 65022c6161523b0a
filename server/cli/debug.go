package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/cairnhq/cairn/core/agent"

	"github.com/cairnhq/cairn/core/parse"
)

func debug(ctx context.Context, args []string, stdio IO) int {
	if len(args) < 1 {
		stdio.errf("cairn debug: parse | prompt | mentions\n")
		return exitUsage
	}
	switch args[0] {
	case "parse":
		return debugParse(args[1:], stdio)
	case "prompt":
		return debugPrompt(ctx, args[1:], stdio)
	case "mentions":
		return debugMentions(ctx, args[1:], stdio)
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
	mode := fs.String("mode", "act", "act or plan")
	dataFlag := fs.String("data-dir", "", "data directory (for its MCP servers)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *mode != "act" && *mode != "plan" {
		stdio.errf("cairn debug prompt: --mode must be act or plan\n")
		return exitUsage
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
