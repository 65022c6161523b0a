// Package cli is the `cairn` command line (docs/cli.md): serve, run, tool, debug, history, resume,
// mcp, eval, doctor and version. main only calls Main; the commands here parse flags and call the
// server and core packages.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cairnhq/cairn/core/egress"

	"golang.org/x/term"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/presets"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Version is set at build time (-ldflags "-X github.com/cairnhq/cairn/server/cli.Version=…").
var Version = "0.1.0-dev"

// Exit codes (docs/cli.md, "Exit codes").
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitNeedsUser = 3
)

// IO is where a command reads and writes; tests substitute buffers.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// TTY reports whether In is an interactive terminal.
	TTY bool
	// ErrTTY reports whether Err is a terminal (progress bars are drawn only there).
	ErrTTY bool
}

// Main runs the command line and returns the exit code.
func Main(args []string) int {
	routeLibraryLogs(libraryLogger(args, os.Stderr))
	stdio := IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, TTY: isTerminal(os.Stdin), ErrTTY: isTerminal(os.Stderr)}
	// Keys never stay where the commands Cairn runs can read them (README, Security): this
	// image either received them over a pipe, or restarts itself without them.
	if err := receiveKeys(); err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitFailure
	}
	if err := shedKeys(args); err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitFailure
	}
	// What a library reaches with its default client goes through the proxy and trusts the
	// extra authorities too (core/egress); the daemon hands its own clients the same transport.
	if tr, err := egress.FromEnv(os.Getenv).Transport(); err == nil {
		http.DefaultTransport = tr
	}
	ctx := context.Background()
	// The daemon catches them itself once its handshake is out: catching signals starts a
	// thread of its own, which the editor waiting for that line need not wait for
	// (docs/performance.md, "P5 — the daemon at rest").
	if len(args) == 0 || args[0] != "serve" {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	return Run(ctx, args, stdio)
}

// Run dispatches a command.
func Run(ctx context.Context, args []string, io IO) int {
	if len(args) < 1 {
		io.errf("%s", usageText)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serve(ctx, rest, io)
	case "run":
		return run(ctx, rest, io)
	case "tool":
		return tool(ctx, rest, io)
	case "debug":
		return debug(ctx, rest, io)
	case "history":
		return history(ctx, rest, io)
	case "resume":
		return resume(ctx, rest, io)
	case "mcp":
		return mcpCommand(ctx, rest, io)
	case "eval":
		return evalCommand(ctx, rest, io)
	case "acp":
		return acpCommand(ctx, rest, io)
	case "worktrees":
		return worktreesCommand(ctx, rest, io)
	case "fork":
		return forkCommand(ctx, rest, io)
	case "doctor":
		return doctor(ctx, rest, io)
	case "status":
		return statusCommand(ctx, rest, io)
	case "why":
		return why(ctx, rest, io)
	case "version", "--version", "-v":
		return io.emit("cairn " + Version + "\n")
	case "help", "-h", "--help":
		return io.emit(usageText)
	}
	io.errf("cairn: unknown command %q\n\n%s", cmd, usageText)
	return exitUsage
}

// errf writes a diagnostic to Err. Its write error is dropped on purpose: Err is where
// failures are reported, so a failure to write there has nowhere left to go.
func (s IO) errf(format string, args ...any) {
	_, _ = fmt.Fprintf(s.Err, format, args...)
}

// emit writes a command's result to Out and returns exitOK. When the write fails (a closed
// pipe, a full disk behind a redirect) the result is lost: that is reported on Err and the
// command fails.
func (s IO) emit(text string) int {
	if _, err := io.WriteString(s.Out, text); err != nil {
		s.errf("cairn: writing the output: %v\n", err)
		return exitFailure
	}
	return exitOK
}

const usageText = `usage:
  cairn serve [--socket PATH | --listen 127.0.0.1:PORT] [--data-dir DIR] [--token-file F]
              [--idle-exit 60s]
  cairn run [-C DIR] [--mode act|plan] [--model M] [--base-url URL] [--api-key K]
            [--auto-approve read,edit,command,browser,local,mcp,protected,outside] [--yolo]
            [--browser | --no-browser] [--max-requests N] [--max-cost USD] [--command-wait S]
            [--no-sandbox] [--network] [--until CMD] [--json] [--connect] [--worktree] TASK...
  cairn acp [--connect] [--data-dir DIR] [--model M] [--auto-approve ...]
                                     an Agent Client Protocol agent on stdin/stdout (Zed, JetBrains, Neovim)
  cairn tool [-C DIR] [--yes] [--connect]  stdin: an assistant message; runs its first tool call
  cairn debug parse [--chunks]       stdin: message text, or a JSON array of chunks
  cairn debug prompt [-C DIR] [--mode act|plan]
  cairn history [--json] | cairn resume ID | cairn version
  cairn doctor [--data-dir DIR]      this machine's facts: the command sandbox, its settings, git, a browser
  cairn status [--data-dir DIR]      which daemon serves the data dir, and its warm search indexes
  cairn why [-C DIR] [--yolo] [--auto-approve ...] "COMMAND" | cairn why [-C DIR] --tool TOOL PATH
                                     what Cairn would do with it (run, ask, deny, refuse), and every rule that led there
  cairn worktrees [-C DIR] list [--json] | merge ID [--mode uncommitted|commit] | discard ID [--yes]
  cairn fork [--data-dir DIR] ID --at N | ID --list
  cairn mcp list [--json] | cairn mcp import FILE | cairn mcp call SERVER TOOL [JSON]
  cairn eval polyglot --dataset DIR [--languages go,python,…] [--exercises LANG/NAME,…] [--limit N]
            [--tries 2] [--parallel N] [--agentic] [--out results.jsonl] [--resume] [--compare RATE]
            [--test-timeout 3m] [--task-timeout 30m] [--work DIR] [--model M] [--base-url URL] …
environment: CAIRN_BASE_URL, CAIRN_API_KEY (else OPENAI_API_KEY), CAIRN_MODEL, CAIRN_DATA_DIR
`

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// newFlags returns a flag set that reports errors to io.Err without exiting.
func newFlags(name string, io IO) *flag.FlagSet {
	fs := flag.NewFlagSet("cairn "+name, flag.ContinueOnError)
	fs.SetOutput(io.Err)
	return fs
}

// parseFlags parses and maps flag errors to the usage exit code.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

// dataDir is --data-dir, else CAIRN_DATA_DIR, else $XDG_DATA_HOME/cairn.
func dataDir(flagValue string) string {
	for _, v := range []string{flagValue, os.Getenv("CAIRN_DATA_DIR")} {
		if v != "" {
			// Absolute: the socket's address and the worktrees' records name paths in it.
			if abs, err := filepath.Abs(v); err == nil {
				return abs
			}
			return v
		}
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "cairn")
}

// configPath is $XDG_CONFIG_HOME/cairn/config.json.
func configPath() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "cairn", "config.json")
}

// settingsFrom merges the config file, the environment and flags (flags win).
type settingsFlags struct {
	model, baseURL, apiKey, autoApprove string
	toolFormat, reasoningEffort         string
	yolo, browser, noBrowser            bool
	maxRequests                         int
	maxCost                             float64
	// commandWait is --command-wait in seconds; nil when not given.
	commandWait *int
	// noSandbox and network are --no-sandbox and --network (README "Security"): the user's
	// choice, for the run's own daemon or, with --connect, the task's own.
	noSandbox, network bool
}

func (f *settingsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "model id")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL (…/v1)")
	fs.StringVar(&f.apiKey, "api-key", "", "API key")
	fs.StringVar(&f.toolFormat, "tool-format", "", "how the model calls tools: native or xml (default: the model table's, xml for unknown models)")
	fs.StringVar(&f.reasoningEffort, "reasoning-effort", "", "low, medium or high, for models that take a reasoning effort")
	fs.StringVar(&f.autoApprove, "auto-approve", "", "comma list: "+strings.Join(config.ApprovalCategories, ","))
	fs.BoolVar(&f.yolo, "yolo", false, "approve everything (the command deny list still asks)")
	fs.BoolVar(&f.browser, "browser", false, "offer browser_action and render script-built pages (needs a Chromium or Chrome, or browserRemoteUrl)")
	fs.BoolVar(&f.noBrowser, "no-browser", false, "never start a browser for this task")
	fs.IntVar(&f.maxRequests, "max-requests", 0, "stop the task after this many model requests (0: the settings' limit)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "stop the task once it has cost this many USD (0: the settings' limit)")
	fs.Func("command-wait", "seconds a command runs before it moves to the background (0: no limit; default: the settings' commandWaitSeconds, 60)", func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return errors.New("--command-wait takes a whole number of seconds, 0 or more")
		}
		f.commandWait = &n
		return nil
	})
	fs.BoolVar(&f.noSandbox, "no-sandbox", false, "run commands without the kernel sandbox (README \"Security\"); they can then be auto-approved where no sandbox can be set up")
	fs.BoolVar(&f.network, "network", false, "let auto-approved commands use the network in the sandbox (approved commands always may)")
}

var errBothBrowser = errors.New("--browser and --no-browser cannot both be given")

// overrides are the flags as one task's own settings, without the approval categories (they
// add to a policy: WithApprovals).
func (f *settingsFlags) overrides() config.Overrides {
	o := config.Overrides{BaseURL: f.baseURL, APIKey: f.apiKeyFlag(), Model: f.model, ToolFormat: f.toolFormat,
		ReasoningEffort: f.reasoningEffort, MaxRequests: f.maxRequests, MaxCost: f.maxCost, CommandWait: f.commandWait}
	switch {
	case f.browser:
		o.Browser = &f.browser
	case f.noBrowser:
		off := false
		o.Browser = &off
	}
	// Only a flag given changes the task's sandbox: without it the daemon's settings decide.
	if f.noSandbox {
		o.NoSandbox = &f.noSandbox
	}
	if f.network {
		o.Network = &f.network
	}
	return o
}

// taskOverrides are the flags as the settings of the one task a run starts or resumes in a
// shared daemon (--connect): that daemon's settings stay as they are. nil when no flag is set.
func (f *settingsFlags) taskOverrides() (*cairnv1.TaskOverrides, error) {
	o := f.overrides()
	if err := o.Check(); err != nil {
		return nil, err
	}
	if f.browser && f.noBrowser {
		return nil, errBothBrowser
	}
	cats := strings.Split(f.autoApprove, ",")
	if _, err := (config.AutoApprove{}).WithApprovals(cats, f.yolo); err != nil {
		return nil, err
	}
	if o.IsZero() && strings.TrimSpace(f.autoApprove) == "" && !f.yolo {
		return nil, nil
	}
	var approve []string
	for _, c := range cats {
		if c = strings.TrimSpace(c); c != "" {
			approve = append(approve, c)
		}
	}
	return &cairnv1.TaskOverrides{BaseUrl: o.BaseURL, ApiKey: o.APIKey, Model: o.Model, ToolFormat: o.ToolFormat,
		ReasoningEffort: o.ReasoningEffort, AutoApprove: approve, Yolo: f.yolo, MaxRequests: int32(min(o.MaxRequests, math.MaxInt32)),
		MaxCost: o.MaxCost, Browser: o.Browser, CommandWaitSeconds: commandWait(o.CommandWait), NoSandbox: o.NoSandbox,
		SandboxNetwork: o.Network}, nil
}

// commandWait is --command-wait as TaskOverrides.command_wait_seconds (nil: not given).
func commandWait(secs *int) *int32 {
	if secs == nil {
		return nil
	}
	v := int32(min(*secs, math.MaxInt32))
	return &v
}

func (f *settingsFlags) settings() (config.Settings, error) {
	s, err := config.Load(configPath())
	if err != nil {
		return s, err
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	if v := env("CAIRN_BASE_URL"); v != "" {
		s.API.BaseURL = v
	}
	if v := env("OPENAI_API_KEY"); v != "" {
		s.API.APIKey = v
	}
	if v := env("CAIRN_API_KEY"); v != "" {
		s.API.APIKey = v
	}
	if v := env("CAIRN_MODEL"); v != "" {
		s.API.Model = v
	}
	if f.baseURL != "" {
		s.API.BaseURL = f.baseURL
	}
	if k := f.apiKeyFlag(); k != "" {
		s.API.APIKey = k
	}
	if f.model != "" {
		s.API.Model = f.model
	}
	if s.API.Preset == presets.VSCodeLM && (f.baseURL != "" || env("CAIRN_BASE_URL") != "") {
		// An endpoint given here replaces the editor's models, as a task's own endpoint does
		// (config.Overrides.Apply).
		s.API.Preset = ""
	}
	ov := f.overrides()
	if err := ov.Check(); err != nil {
		return s, err
	}
	if ov.ToolFormat != "" {
		s.API.ToolFormat = ov.ToolFormat
	}
	if ov.ReasoningEffort != "" {
		s.API.ReasoningEffort = ov.ReasoningEffort
	}
	if s.API.BaseURL == "" && s.API.APIKey != "" {
		s.API.BaseURL = "https://api.openai.com/v1"
	}
	p, err := s.AutoApprove.WithApprovals(strings.Split(f.autoApprove, ","), f.yolo)
	if err != nil {
		return s, err
	}
	s.AutoApprove = p
	if f.browser && f.noBrowser {
		return s, errBothBrowser
	}
	if ov.Browser != nil {
		s.BrowserEnabled = *ov.Browser
	}
	if ov.MaxRequests > 0 {
		s.TaskLimits.MaxRequests = ov.MaxRequests
	}
	if ov.MaxCost > 0 {
		s.TaskLimits.MaxCost = ov.MaxCost
	}
	if f.commandWait != nil {
		s.CommandWaitSeconds = *f.commandWait
	}
	if ov.NoSandbox != nil {
		s.SandboxOff = *ov.NoSandbox
	}
	if ov.Network != nil {
		s.SandboxNetwork = *ov.Network
	}
	return s, nil
}

func logger(w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if os.Getenv("CAIRN_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
