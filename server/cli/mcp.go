package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/mcp"
)

// mcpSettingsFile is the MCP settings file in the data dir (docs/architecture.md, "MCP").
const mcpSettingsFile = "mcp_settings.json"

// mcpCommand runs `cairn mcp list|import|call`. It reads the data dir's mcp_settings.json and
// talks to the servers itself.
func mcpCommand(ctx context.Context, args []string, stdio IO) int {
	if len(args) == 0 {
		stdio.errf("usage: cairn mcp list [--json] | cairn mcp import FILE | cairn mcp call SERVER TOOL JSON\n")
		return exitUsage
	}
	switch args[0] {
	case "list":
		return mcpList(ctx, args[1:], stdio)
	case "import":
		return mcpImport(args[1:], stdio)
	case "call":
		return mcpCall(ctx, args[1:], stdio)
	}
	stdio.errf("cairn mcp: unknown command %q (list, import, call)\n", args[0])
	return exitUsage
}

// mcpHub starts a hub over the data dir's settings, for one command. Its stdio servers run in
// the command sandbox as the daemon's do (docs/architecture.md "MCP"), unless the settings
// turn it off; settings that do not load leave it on.
func mcpHub(dataFlag string) *mcp.Hub {
	dir := dataDir(dataFlag)
	settings := func() config.Settings {
		s, err := config.Load(configPath())
		if err != nil {
			return config.Default()
		}
		return s
	}
	h := mcp.New(mcp.Options{SettingsPath: filepath.Join(dir, mcpSettingsFile), ClientVersion: Version, NoWatch: true,
		Sandbox: agent.MCPSandbox(settings, dir, nil)})
	h.Start()
	return h
}

// settle waits until no server is making its first connection attempt, each for at most its
// own timeout, or until ctx ends.
func settle(ctx context.Context, h *mcp.Hub) {
	// Its only errors are the end of ctx and a closed hub, and neither loses anything: the
	// command goes on with the servers as they are (one still connecting shows as such).
	_ = h.WaitConnecting(ctx)
}

func closeHub(h *mcp.Hub, stdio IO) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		stdio.errf("cairn mcp: %v\n", err)
	}
}

// maxTimeout is the longest server timeout plus a margin: how long list and call may wait.
func maxTimeout(h *mcp.Hub) time.Duration {
	longest := mcp.DefaultTimeout
	for _, s := range h.Servers() {
		longest = max(longest, s.Config.Timeout)
	}
	return time.Duration(longest+2) * time.Second
}

func mcpList(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("mcp list", stdio)
	asJSON := fs.Bool("json", false, "print JSON")
	dataFlag := fs.String("data-dir", "", "data directory")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	h := mcpHub(*dataFlag)
	defer closeHub(h, stdio)
	wctx, cancel := context.WithTimeout(ctx, maxTimeout(h))
	defer cancel()
	settle(wctx, h)
	servers := h.Servers()
	if *asJSON {
		enc := json.NewEncoder(stdio.Out)
		enc.SetIndent("", "  ")
		out := struct {
			SettingsPath  string       `json:"settingsPath"`
			SettingsError string       `json:"settingsError,omitempty"`
			Servers       []mcp.Server `json:"servers"`
		}{h.SettingsPath(), h.SettingsError(), servers}
		if err := enc.Encode(out); err != nil {
			stdio.errf("cairn mcp list: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	if e := h.SettingsError(); e != "" {
		stdio.errf("cairn mcp list: %s\n", e)
	}
	if len(servers) == 0 {
		return stdio.emit(fmt.Sprintf("No MCP servers configured (%s).\n", h.SettingsPath()))
	}
	var out strings.Builder
	w := tabwriter.NewWriter(&out, 0, 4, 2, ' ', 0)
	// w writes into memory; Flush reports the only error it can have.
	_, _ = fmt.Fprintln(w, "NAME\tSTATUS\tTOOLS\tRESOURCES\tTEMPLATES\tPROMPTS\tERROR")
	for _, s := range servers {
		_, _ = fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", s.Name, s.Status, len(s.Tools), len(s.Resources), len(s.Templates),
			len(s.Prompts), firstLine(s.Error))
	}
	if err := w.Flush(); err != nil {
		return exitFailure
	}
	for _, s := range servers {
		if len(s.Tools) == 0 {
			continue
		}
		fmt.Fprintf(&out, "\n%s tools:\n", s.Name)
		for _, t := range s.Tools {
			auto := ""
			if t.AutoApprove {
				auto = " [auto-approve]"
			}
			fmt.Fprintf(&out, "  %s%s — %s\n", t.Name, auto, firstLine(t.Description))
		}
	}
	return stdio.emit(out.String())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func mcpImport(args []string, stdio IO) int {
	fs := newFlags("mcp import", stdio)
	dataFlag := fs.String("data-dir", "", "data directory")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		stdio.errf("usage: cairn mcp import FILE\n")
		return exitUsage
	}
	dir := dataDir(*dataFlag)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		stdio.errf("cairn mcp import: %v\n", err)
		return exitFailure
	}
	added, skipped, err := mcp.ImportSettings(filepath.Join(dir, mcpSettingsFile), fs.Arg(0))
	if err != nil {
		stdio.errf("cairn mcp import: %v\n", err)
		return exitFailure
	}
	out := fmt.Sprintf("Imported %d server(s)%s.\n", len(added), listSuffix(added))
	if len(skipped) > 0 {
		out += fmt.Sprintf("Skipped %d already configured: %s.\n", len(skipped), strings.Join(skipped, ", "))
	}
	return stdio.emit(out)
}

func listSuffix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}

func mcpCall(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("mcp call", stdio)
	dataFlag := fs.String("data-dir", "", "data directory")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		stdio.errf("usage: cairn mcp call SERVER TOOL [JSON]\n")
		return exitUsage
	}
	server, tool, raw := fs.Arg(0), fs.Arg(1), "{}"
	if fs.NArg() == 3 {
		raw = fs.Arg(2)
	}
	h := mcpHub(*dataFlag)
	defer closeHub(h, stdio)
	if err := h.WaitReady(ctx, server); err != nil {
		stdio.errf("cairn mcp call: %v\n", err)
		return exitFailure
	}
	args2 := json.RawMessage(raw)
	if err := h.CheckArguments(server, tool, args2); err != nil {
		stdio.errf("cairn mcp call: %v\n", err)
		if errors.Is(err, mcp.ErrBadArguments) {
			return exitUsage
		}
		return exitFailure
	}
	res, err := h.CallTool(ctx, server, tool, args2, func(p mcp.Progress) {
		stdio.errf("progress %g/%g %s\n", p.Progress, p.Total, p.Message)
	})
	if err != nil {
		stdio.errf("cairn mcp call: %v\n", err)
		return exitFailure
	}
	var out strings.Builder
	for _, c := range res.Content {
		switch {
		case c.Type == mcp.ContentText || (c.Type == mcp.ContentResource && c.Data == nil):
			out.WriteString(c.Text + "\n")
		case c.Type == mcp.ContentResourceLink:
			fmt.Fprintf(&out, "[resource link %s %s]\n", c.Name, c.URI)
		default:
			fmt.Fprintf(&out, "[%s %s, %d bytes]\n", c.Type, c.MIMEType, len(c.Data))
		}
	}
	if res.Structured != "" {
		out.WriteString(res.Structured + "\n")
	}
	if code := stdio.emit(out.String()); code != exitOK || res.IsError {
		return exitFailure
	}
	return exitOK
}
