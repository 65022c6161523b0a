package cli

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server/acp"
)

// acpOptions are the flags of `cairn acp`.
type acpOptions struct {
	dataFlag *string
	connect  *bool
	// until is --until: each session's "done when" command (README, "Done when").
	until *string
	sf    *settingsFlags
}

// acpFlags defines acp's flags; Main reads the same set to find the key among them (keys.go).
func acpFlags(stdio IO) (*flag.FlagSet, *acpOptions) {
	fs := newFlags("acp", stdio)
	o := &acpOptions{sf: &settingsFlags{}}
	o.dataFlag = fs.String("data-dir", "", "data directory")
	o.connect = fs.Bool("connect", false, "run the sessions on the daemon already running on the data dir (the editor's): "+
		"its settings, with these flags for each session's task only")
	o.until = fs.String("until", "", "a command that decides when each session's task is done: a completion is accepted only when it exits 0")
	o.sf.register(fs)
	return fs, o
}

// acpCommand serves the Agent Client Protocol on stdin/stdout (README "Use Cairn in Zed,
// JetBrains, Neovim"): stdout carries only protocol messages, diagnostics go to stderr.
func acpCommand(ctx context.Context, args []string, stdio IO) int {
	fs, o := acpFlags(stdio)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		stdio.errf("cairn acp: no arguments are taken; the editor sends the prompts\n")
		return exitUsage
	}
	// Every session's task has settings of its own, so its choices never reach the shared
	// settings; with --connect the flags are those settings.
	own := &cairnv1.TaskOverrides{}
	if *o.connect {
		var err error
		if own, err = o.sf.taskOverrides(); err != nil {
			stdio.errf("cairn acp: %v\n", err)
			return exitUsage
		}
	}
	if own == nil {
		own = &cairnv1.TaskOverrides{}
	}
	own.DoneWhen = strings.TrimSpace(*o.until)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("CAIRN_DEBUG") != "" {
		log = logger(stdio.Err)
	}
	if !*o.connect {
		// Without a model endpoint there is no daemon to start: the editor is told, through
		// the protocol's auth method, which setting to set.
		settings, err := o.sf.settings()
		if err != nil {
			stdio.errf("cairn acp: %v\n", err)
			return exitUsage
		}
		if settings.API.BaseURL == "" || settings.API.Preset == presets.VSCodeLM {
			missing := "Cairn has no model endpoint: set CAIRN_API_KEY (or OPENAI_API_KEY) and CAIRN_BASE_URL in the " +
				"environment the editor starts `cairn acp` with, or api.baseUrl and api.apiKey in Cairn's config file"
			if settings.API.Preset == presets.VSCodeLM {
				missing = vscodelm.ErrNeedsEditor.Error()
			}
			stdio.errf("cairn acp: %s\n", missing)
			if err := acp.Serve(ctx, acp.Options{Log: log, MissingKey: missing, Version: Version}, stdio.In, stdio.Out); err != nil {
				stdio.errf("cairn acp: %v\n", err)
				return exitFailure
			}
			return exitUsage
		}
	}
	return withDaemon(ctx, *o.dataFlag, *o.connect, *o.sf, stdio, func(c *client) int {
		st, err := c.state.GetState(ctx, &cairnv1.GetStateRequest{})
		if err != nil {
			stdio.errf("cairn acp: %v\n", statusText(err))
			return exitFailure
		}
		model := st.GetSettings().GetApi().GetModel()
		if own.GetModel() != "" {
			model = own.GetModel()
		}
		opts := acp.Options{Clients: acp.Clients{Tasks: c.tasks, UI: c.ui, State: c.state, Files: c.ws, Bridge: c.bridge}, Log: log,
			Images: llm.ResolveModel(model, nil).SupportsImages, Overrides: own, Version: Version}
		if err := acp.Serve(ctx, opts, stdio.In, stdio.Out); err != nil {
			stdio.errf("cairn acp: %v\n", err)
			return exitFailure
		}
		return exitOK
	})
}
