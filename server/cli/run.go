package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
	"github.com/cairnhq/cairn/core/shellcmd"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/server/follow"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server"
)

// runOptions are the flags of run and resume (resume has no dir, mode or hooks).
type runOptions struct {
	mode, dataFlag               *string
	dirs                         *dirsFlag
	jsonOut, connect, trustHooks *bool
	worktree                     *bool
	// until is --until: the task's "done when" command (README, "Done when").
	until *string
	sf    *settingsFlags
}

// runFlags defines run's flags; Main reads the same set to find the key among them (keys.go).
func runFlags(stdio IO) (*flag.FlagSet, *runOptions) {
	fs := newFlags("run", stdio)
	o := &runOptions{sf: &settingsFlags{}}
	o.dirs = dirFlags(fs, true, "workspace directory; several -C make several workspace roots")
	o.mode = fs.String("mode", "act", "act, plan or the slug of a mode the workspace has (docs/modes.md)")
	o.jsonOut = fs.Bool("json", false, "print one UI event per line as JSON")
	o.dataFlag = fs.String("data-dir", "", "data directory")
	o.connect = fs.Bool("connect", false, "use the daemon already running on the data dir: its settings, with this run's flags for this task only")
	o.worktree = fs.Bool("worktree", false, "run the task in a git worktree of its own on a new branch (README, \"Tasks in worktrees\")")
	o.until = fs.String("until", "", "a command that decides when the task is done: a completion is accepted only when it exits 0 "+
		"(e.g. --until \"go test ./...\"; README, \"Done when\")")
	o.trustHooks = fs.Bool("hooks", false, "enable hooks for the workspace and trust the hook files as they are now "+
		"(a hook created or changed during the run does not run)")
	o.sf.register(fs)
	return fs, o
}

// resumeFlags defines resume's flags.
func resumeFlags(stdio IO) (*flag.FlagSet, *runOptions) {
	fs := newFlags("resume", stdio)
	o := &runOptions{sf: &settingsFlags{}}
	o.jsonOut = fs.Bool("json", false, "print one UI event per line as JSON")
	o.dataFlag = fs.String("data-dir", "", "data directory")
	o.connect = fs.Bool("connect", false, "use the daemon already running on the data dir: its settings, with this run's flags for this task only")
	o.sf.register(fs)
	return fs, o
}

// run starts a daemon for itself, runs one task as its client and prints the conversation.
func run(ctx context.Context, args []string, stdio IO) int {
	fs, o := runFlags(stdio)
	mode, jsonOut, dataFlag, connect, trustHooks, sf := o.mode, o.jsonOut, o.dataFlag, o.connect, o.trustHooks, o.sf
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		stdio.errf("cairn run: a task is required, e.g. cairn run \"add a README\"\n")
		return exitUsage
	}
	if strings.TrimSpace(*mode) == "" {
		stdio.errf("cairn run: --mode must be act, plan or a mode's slug\n")
		return exitUsage
	}
	if err := refuseFlags(sf, o.dirs.all()); err != nil {
		stdio.errf("cairn run: %v\n", err)
		return exitUsage
	}
	var own *cairnv1.TaskOverrides
	if *connect {
		// A shared daemon keeps its settings: the flags become this task's own.
		var err error
		if own, err = sf.taskOverrides(); err != nil {
			stdio.errf("cairn run: %v\n", err)
			return exitUsage
		}
	}
	if until := strings.TrimSpace(*o.until); until != "" {
		if own == nil {
			own = &cairnv1.TaskOverrides{}
		}
		own.DoneWhen = until
	}
	return withDaemon(ctx, *dataFlag, *connect, *sf, stdio, func(c *client) int {
		var roots []string
		for _, d := range o.dirs.all() {
			root, err := filepath.Abs(d)
			if err != nil {
				stdio.errf("cairn run: %v\n", err)
				return exitUsage
			}
			if *trustHooks {
				if err := enableHooks(ctx, c, root, stdio); err != nil {
					stdio.errf("cairn run: --hooks: %v\n", statusText(err))
					return exitFailure
				}
			}
			roots = append(roots, strings.ToValidUTF8(root, "\uFFFD"))
		}
		// Protobuf strings are UTF-8 only: bad bytes in the task or the folder's name become
		// U+FFFD (the daemon maps such a folder name back to the folder on disk).
		resp, err := c.tasks.NewTask(ctx, &cairnv1.NewTaskRequest{Text: strings.ToValidUTF8(text, "\uFFFD"),
			WorkspaceRoots: roots, ModeSlug: *mode, Overrides: own, Worktree: *o.worktree})
		if err != nil {
			stdio.errf("cairn run: %v\n", statusText(err))
			return exitFailure
		}
		if *o.worktree {
			announceWorktree(ctx, c, resp.GetTaskId(), stdio)
		}
		p := &printer{io: stdio, c: c, taskID: resp.GetTaskId(), json: *jsonOut, yolo: sf.yolo, noSandbox: sf.noSandbox}
		if *connect {
			defer clearTask(stdio, c, resp.GetTaskId())
		}
		return p.follow(ctx)
	})
}

// resume reopens a task from history and follows it.
func resume(ctx context.Context, args []string, stdio IO) int {
	fs, o := resumeFlags(stdio)
	jsonOut, dataFlag, connect, sf := o.jsonOut, o.dataFlag, o.connect, o.sf
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		stdio.errf("cairn resume: one task id is required (see cairn history)\n")
		return exitUsage
	}
	id := fs.Arg(0)
	if err := refuseFlags(sf, []string{"."}); err != nil {
		stdio.errf("cairn resume: %v\n", err)
		return exitUsage
	}
	var own *cairnv1.TaskOverrides
	if *connect {
		var err error
		if own, err = sf.taskOverrides(); err != nil {
			stdio.errf("cairn resume: %v\n", err)
			return exitUsage
		}
	}
	return withDaemon(ctx, *dataFlag, *connect, *sf, stdio, func(c *client) int {
		if _, err := c.tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: id, Overrides: own}); err != nil {
			stdio.errf("cairn resume: %v\n", statusText(err))
			return exitFailure
		}
		p := &printer{io: stdio, c: c, taskID: id, json: *jsonOut, yolo: sf.yolo, resuming: true, noSandbox: sf.noSandbox}
		if *connect {
			defer clearTask(stdio, c, id)
		}
		return p.follow(ctx)
	})
}

// withDaemon starts a private daemon on a temporary socket, connects, and runs fn; with connect
// it attaches to the daemon already serving the data dir instead (the one the editor uses).
func withDaemon(ctx context.Context, dataFlag string, connect bool, sf settingsFlags, stdio IO, fn func(*client) int) int {
	if connect {
		c, err := attach(ctx, dataDir(dataFlag))
		if err != nil {
			stdio.errf("cairn: --connect: %v\n", err)
			return exitFailure
		}
		defer closeClient(stdio, c)
		return fn(c)
	}
	settings, err := sf.settings()
	if err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitUsage
	}
	return privateDaemon(ctx, dataDir(dataFlag), settings, stdio, fn)
}

// privateDaemon starts a daemon with settings on a temporary socket, connects, and runs fn.
func privateDaemon(ctx context.Context, dataDir string, settings config.Settings, stdio IO, fn func(*client) int) int {
	if settings.API.Preset == presets.VSCodeLM {
		stdio.errf("cairn: %v\n", vscodelm.ErrNeedsEditor)
		return exitUsage
	}
	if settings.API.BaseURL == "" {
		stdio.errf("cairn: no model endpoint: set --base-url/--api-key or CAIRN_BASE_URL/CAIRN_API_KEY\n")
		return exitUsage
	}
	return startPrivate(ctx, dataDir, settings, stdio, fn)
}

// startPrivate starts a daemon with settings on a temporary socket, connects, and runs fn.
func startPrivate(ctx context.Context, dataDir string, settings config.Settings, stdio IO, fn func(*client) int) int {
	tmp, err := os.MkdirTemp("", "cairn-run-")
	if err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitFailure
	}
	defer func() {
		if err := os.RemoveAll(tmp); err != nil {
			stdio.errf("cairn: removing %s: %v\n", tmp, err)
		}
	}()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("CAIRN_DEBUG") != "" {
		log = logger(stdio.Err)
	}
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	d, err := server.Start(dctx, server.Config{DataDir: dataDir, Socket: filepath.Join(tmp, "daemon.sock"),
		TokenFile: filepath.Join(tmp, "daemon.token"), Version: Version, Settings: &settings, Logger: log})
	if err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitFailure
	}
	defer d.Stop()
	hs := d.Handshake()
	c, err := dial(hs.Address, hs.TokenFile)
	if err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitFailure
	}
	defer closeClient(stdio, c)
	return fn(c)
}

// clearTask closes the task the run opened in a shared daemon (--connect), so that daemon does not
// hold it after the run ends: finished, failed or interrupted (an interrupted task stops there and
// stays in history, resumable). It gets its own short deadline: ctx may already be cancelled.
func clearTask(stdio IO, c *client, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A daemon that went away closed the task with it; the run already said so.
	if _, err := c.tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: id}); err != nil && !daemonGone(err) {
		stdio.errf("cairn: closing task %s in the daemon: %v\n", id, statusText(err))
	}
}

// closeClient ends the connection to the daemon; the run's outcome is already decided, so a
// failure is only reported.
func closeClient(stdio IO, c *client) {
	if err := c.Close(); err != nil {
		stdio.errf("cairn: closing the connection: %v\n", err)
	}
}

// printer follows a task's subscription, prints it, and answers asks: on a terminal by asking
// the user, otherwise by the rules of docs/cli.md, "cairn run" (deny what is not
// auto-approved, exit 3 on a question).
type printer struct {
	io       IO
	c        *client
	taskID   string
	json     bool
	yolo     bool
	resuming bool
	// noSandbox is --no-sandbox: the first line names it as what turned the sandbox off;
	// sandboxShown, that the first line was printed.
	noSandbox, sandboxShown bool

	// shown is the command output printed per row: a long output's row is replaced by a
	// bounded view rather than extended, and its final version is printed from where it
	// departs from what the terminal already shows.
	shown map[int32]string
	// denials counts the actions denied in a row without a terminal; an action that runs in
	// between starts the count again. At maxDenials the run stops (README, "Using it from the
	// command line").
	denials int
	in      *bufio.Reader
	lastNL  bool
	// outErr is the first failed write to Out: the transcript is incomplete, so the run fails.
	outErr error
	// splits separate the thinking of the text rows still streaming; outTTY caches whether
	// Out is a terminal (thinking is dimmed there).
	splits map[int32]*thinkingSplit
	outTTY *bool
	// background are the commands the task said run on in the background and has not said
	// ended, by id: an interrupted run names them as stopped, since the task's cancellation
	// stops them after this client stopped listening (README, "Commands that keep running").
	background map[int32]string
}

// follow prints the task until it ends and returns the exit code.
func (p *printer) follow(ctx context.Context) int {
	code := p.followEvents(ctx)
	if p.outErr != nil {
		p.io.errf("cairn: writing the output: %v\n", p.outErr)
		if code == exitOK {
			code = exitFailure
		}
	}
	return code
}

// write prints to Out, keeping the first failure.
func (p *printer) write(s string) {
	if _, err := io.WriteString(p.io.Out, s); err != nil && p.outErr == nil {
		p.outErr = err
	}
}

func (p *printer) followEvents(ctx context.Context) int {
	p.shown = map[int32]string{}
	p.in = bufio.NewReader(p.io.In)
	p.lastNL = true
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := p.c.ui.Subscribe(sctx, &cairnv1.SubscribeRequest{TaskId: p.taskID})
	if err != nil {
		p.io.errf("cairn: %v\n", statusText(err))
		return exitFailure
	}
	// Only a resumed task's open ask (the resume question) is answered from the snapshot;
	// older asks in the history were answered long ago.
	opts := follow.Options{OnEvent: p.printJSON}
	if p.resuming {
		opts.SnapshotAsks = follow.OpenAsk
	}
	code := exitOK
	f := follow.New(stream, p, func(ctx context.Context, m *cairnv1.Message) (bool, error) {
		c, done := p.answer(ctx, m)
		code = c
		return done, nil
	}, opts)
	if _, err := f.Next(ctx); err != nil {
		switch {
		case errors.Is(err, errEncoding):
			p.io.errf("cairn: %v\n", err)
		case ctx.Err() != nil:
			p.cancelTask()
			p.noteStopped()
			p.io.errf("\ncairn: interrupted; resume with: cairn resume %s\n", p.taskID)
		case daemonGone(err):
			p.io.errf("\ncairn: %s; `cairn resume %s` reopens the task\n", goneText, p.taskID)
		default:
			p.io.errf("cairn: %v\n", statusText(err))
		}
		return exitFailure
	}
	return code
}

// errEncoding is the failure of --json to encode an event.
var errEncoding = errors.New("encoding an event")

// printJSON prints each event as received with --json.
func (p *printer) printJSON(ev *cairnv1.SubscribeResponse) error {
	if !p.json {
		return nil
	}
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(ev)
	if err != nil {
		return fmt.Errorf("%w: %w", errEncoding, err)
	}
	p.write(string(b) + "\n")
	return nil
}

// The printer is the follower's reader (server/follow): it prints each change.

// Snapshot starts the snapshot.
func (p *printer) Snapshot(_ context.Context, st *cairnv1.TaskState) {
	if !p.sandboxShown {
		// The first line says how the task's commands run, before the conversation (docs/cli.md,
		// "The first line"); on stderr like the notes, so --json's stdout stays events only.
		p.sandboxShown = true
		p.io.errf("%s\n", sandboxLine(st.GetSandbox(), p.noSandbox))
	}
}

// Row shows a new task's notes (a cost limit prices cannot check, a TaskStart hook that
// failed or was skipped): they may come before the subscription.
func (p *printer) Row(_ context.Context, m *cairnv1.Message) {
	if !p.resuming && (m.GetSay() == cairnv1.SayKind_SAY_KIND_INFO || m.GetSay() == cairnv1.SayKind_SAY_KIND_HOOK) {
		p.show(m, "")
	}
}

// SnapshotEnd ends the snapshot.
func (p *printer) SnapshotEnd(context.Context, *cairnv1.TaskState) {}

// Added shows a new row.
func (p *printer) Added(_ context.Context, m *cairnv1.Message) { p.show(m, "") }

// Appended shows the text a streaming row grew by.
func (p *printer) Appended(_ context.Context, m *cairnv1.Message, delta string) {
	p.showDelta(m, delta)
}

// Finalized ends a streaming text row.
func (p *printer) Finalized(_ context.Context, m *cairnv1.Message) {
	p.finishText(m)
	p.endLine()
}

// Updated shows what a row replaced whole adds to the version shown.
func (p *printer) Updated(_ context.Context, m, old *cairnv1.Message) {
	switch {
	case old == nil:
	case m.GetSay() == cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT:
		p.showOutput(m)
	case m.GetSay() == cairnv1.SayKind_SAY_KIND_SUBAGENTS:
		p.showSubagents(m, old.GetText())
	case strings.HasPrefix(m.GetText(), old.GetText()):
		p.showDelta(m, m.GetText()[len(old.GetText()):])
	}
	if !m.GetPartial() && old != nil && old.GetPartial() {
		p.finishText(m)
		p.endLine()
	}
}

// State is not printed.
func (p *printer) State(context.Context, *cairnv1.TaskState) {}

// trackBackground follows, from the task's notes, which commands run on in the background: a
// note that one went there, and a note about an id that ended or was stopped.
func (p *printer) trackBackground(m *cairnv1.Message) {
	if p.background == nil {
		p.background = map[int32]string{}
	}
	var id int32
	if _, err := fmt.Sscanf(m.GetText(), "Command %d runs on in the background:", &id); err == nil && id > 0 {
		_, cmd, _ := strings.Cut(m.GetText(), ": ")
		p.background[id] = cmd
		return
	}
	if co := m.GetCommandOutput(); co != nil && co.GetId() > 0 {
		delete(p.background, co.GetId())
	}
}

// noteStopped names the background commands an interrupt stops with the task.
func (p *printer) noteStopped() {
	ids := make([]int32, 0, len(p.background))
	for id := range p.background {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if !p.json {
			p.io.errf("note: Stopped command %d as the run was interrupted: %s\n", id, p.background[id])
		}
	}
}

func (p *printer) cancelTask() {
	_, _ = p.c.tasks.CancelTask(context.Background(), &cairnv1.CancelTaskRequest{TaskId: p.taskID})
}

func (p *printer) out(format string, args ...any) {
	if p.json {
		return
	}
	s := fmt.Sprintf(format, args...)
	if s == "" {
		return
	}
	p.write(s)
	p.lastNL = strings.HasSuffix(s, "\n")
}

func (p *printer) endLine() {
	if !p.lastNL {
		p.out("\n")
	}
}

// show prints a new message.
func (p *printer) show(m *cairnv1.Message, _ string) {
	switch m.GetSay() {
	case cairnv1.SayKind_SAY_KIND_TEXT:
		p.endLine()
		p.showText(m, m.GetText(), !m.GetPartial())
		if !m.GetPartial() {
			p.endLine()
		}
	case cairnv1.SayKind_SAY_KIND_TOOL:
		p.denials = 0 // an action ran: the denials are no longer in a row
		p.endLine()
		p.out("%s\n", toolLine(m.GetTool()))
	case cairnv1.SayKind_SAY_KIND_COMMAND:
		p.denials = 0
		p.endLine()
		p.out("$ %s\n", m.GetCommand().GetCommand())
	case cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT:
		p.out("%s", m.GetText())
		p.shown[m.GetIndex()] = m.GetText()
	case cairnv1.SayKind_SAY_KIND_COMPLETION_RESULT:
		p.endLine()
		if c := m.GetCompletion().GetCheck(); c != nil && !c.GetPassed() {
			// The "done when" check refused the result (README, "Done when"): the task goes on.
			p.out("\n✗ not done yet: %s exited %d\n%s\n", c.GetCommand(), c.GetExitCode(), strings.TrimRight(c.GetOutput(), "\n"))
			break
		}
		p.out("\n✓ %s\n", m.GetText())
	case cairnv1.SayKind_SAY_KIND_DIFF_ERROR:
		p.endLine()
		if !p.json {
			p.io.errf("error: the edit of %s could not be applied; the file is unchanged\n", m.GetText())
		}
	case cairnv1.SayKind_SAY_KIND_IGNORE_ERROR:
		p.endLine()
		if !p.json {
			p.io.errf("error: %s is blocked by the ignore file\n", m.GetText())
		}
	case cairnv1.SayKind_SAY_KIND_ERROR:
		p.endLine()
		if !p.json {
			p.io.errf("error: %s\n", m.GetText())
		}
	case cairnv1.SayKind_SAY_KIND_ERROR_RETRY:
		if !p.json {
			r := m.GetRetry()
			p.io.errf("request failed (%s); retry %d/%d in %ds\n", r.GetError(), r.GetAttempt(), r.GetMaxAttempts(), r.GetDelaySeconds())
		}
	case cairnv1.SayKind_SAY_KIND_HOOK:
		p.endLine()
		if !p.json {
			p.io.errf("hook: %s\n", m.GetText())
		}
	case cairnv1.SayKind_SAY_KIND_INFO:
		p.endLine()
		p.trackBackground(m)
		if !p.json {
			p.io.errf("note: %s\n", m.GetText())
		}
	case cairnv1.SayKind_SAY_KIND_USER_FEEDBACK:
		p.endLine()
		p.out("> %s\n", m.GetText())
	case cairnv1.SayKind_SAY_KIND_TASK_PROGRESS:
		p.endLine()
		p.out("%s\n", m.GetText())
	case cairnv1.SayKind_SAY_KIND_SUBAGENTS:
		p.showSubagents(m, "")
	case cairnv1.SayKind_SAY_KIND_MCP_SERVER_REQUEST_STARTED:
		p.endLine()
		p.out("%s\n", mcpLine(m.GetMcp()))
	case cairnv1.SayKind_SAY_KIND_MCP_SERVER_RESPONSE:
		p.endLine()
		p.out("%s\n", indentLines(m.GetText(), "  "))
	case cairnv1.SayKind_SAY_KIND_BROWSER_ACTION_LAUNCH, cairnv1.SayKind_SAY_KIND_BROWSER_ACTION:
		b := m.GetBrowser()
		p.endLine()
		p.out("browser: %s\n", strings.Join(strings.Fields(strings.Join([]string{b.GetAction(), b.GetUrl(), b.GetCoordinate(), b.GetText()}, " ")), " "))
	case cairnv1.SayKind_SAY_KIND_BROWSER_ACTION_RESULT:
		b := m.GetBrowser()
		p.endLine()
		p.out("  screenshot %d bytes, %s, mouse %s\n", len(b.GetScreenshotPng()), b.GetCurrentUrl(), b.GetMousePosition())
		for _, l := range strings.Split(b.GetLogs(), "\n") {
			if l != "" {
				p.out("  console %s\n", l)
			}
		}
	}
}

// mcpLine shows an MCP call: "mcp everything/echo {...}" or "mcp everything read demo://x".
func mcpLine(m *cairnv1.McpPayload) string {
	if m.GetToolName() != "" {
		return "mcp " + m.GetServerName() + "/" + m.GetToolName() + " " + m.GetArguments()
	}
	return "mcp " + m.GetServerName() + " read " + m.GetUri()
}

func indentLines(s, pad string) string {
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

func (p *printer) showDelta(m *cairnv1.Message, delta string) {
	switch m.GetSay() {
	case cairnv1.SayKind_SAY_KIND_TEXT:
		p.showText(m, delta, false)
	case cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT:
		p.out("%s", delta)
		p.shown[m.GetIndex()] += delta
	}
}

// showOutput prints a new version of a command output row: what was added when it extends
// what the terminal shows; else, once the row is final, the final version from the start of
// the first line that differs (a long output's row is replaced by its bounded view).
func (p *printer) showOutput(m *cairnv1.Message) {
	shown, text := p.shown[m.GetIndex()], m.GetText()
	if strings.HasPrefix(text, shown) {
		p.showDelta(m, text[len(shown):])
		return
	}
	if m.GetPartial() {
		return
	}
	same := 0
	for same < len(shown) && same < len(text) && shown[same] == text[same] {
		same++
	}
	from := strings.LastIndexByte(text[:same], '\n') + 1
	p.endLine()
	p.out("%s", text[from:])
	p.shown[m.GetIndex()] = text
}

func toolLine(t *cairnv1.ToolPayload) string {
	verb := map[cairnv1.ToolOperation]string{
		cairnv1.ToolOperation_TOOL_OPERATION_READ_FILE:                  "read",
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_TOP_LEVEL:       "list",
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_RECURSIVE:       "list (recursive)",
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_CODE_DEFINITION_NAMES: "outline",
		cairnv1.ToolOperation_TOOL_OPERATION_SEARCH_FILES:               "search " + t.GetRegex() + " in",
		cairnv1.ToolOperation_TOOL_OPERATION_EDITED_EXISTING_FILE:       "edit",
		cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED:           "create",
		cairnv1.ToolOperation_TOOL_OPERATION_USE_SUBAGENTS:              "start subagents",
		cairnv1.ToolOperation_TOOL_OPERATION_NAVIGATE:                   "look up " + t.GetContent() + " from",
	}[t.GetOperation()]
	if verb == "" {
		verb = "tool"
	}
	return "• " + verb + " " + t.GetPath()
}

// maxDenials is how many actions denied in a row end an unattended run (exit 3).
const maxDenials = 3

// answer handles an ask; done reports that the run ends with code.
func (p *printer) answer(ctx context.Context, m *cairnv1.Message) (int, bool) {
	reply := func(r cairnv1.AskResponse, text string) {
		_, err := p.c.tasks.AnswerAsk(ctx, &cairnv1.AnswerAskRequest{TaskId: p.taskID, Response: r, Text: text, MessageIndex: proto.Int32(m.GetIndex())})
		if err != nil && !p.json {
			p.io.errf("cairn: %v\n", statusText(err))
		}
	}
	p.endLine()
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_TOOL, cairnv1.AskKind_ASK_KIND_COMMAND, cairnv1.AskKind_ASK_KIND_BROWSER_ACTION_LAUNCH,
		cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER:
		what, flagName := describeAsk(m)
		if !p.io.TTY {
			p.denials++
			hint := p.denialHint(m, flagName)
			if !p.json {
				p.io.errf("denied: %s — %s\n", what, hint)
			}
			if p.denials >= maxDenials {
				p.endLine()
				p.io.errf("stopped: %d actions in a row were denied because no one is at a terminal to approve them; "+
					"the last: %s — %s. Run cairn at a terminal to answer, or allow what the task needs with the flag above.\n",
					p.denials, what, hint)
				p.cancelTask()
				return exitNeedsUser, true
			}
			reply(cairnv1.AskResponse_ASK_RESPONSE_REJECT, "The user is not present to approve this ("+what+"); it was denied. Continue without it, or finish with attempt_completion explaining what needs approval.")
			return 0, false
		}
		if why := protectedReason(m); why != "" {
			p.out("! protected: %s\n", why)
		}
		if c := m.GetCommand(); c != nil {
			p.out("$ %s\n", c.GetCommand())
		} else if t := m.GetTool(); t != nil && t.GetDiff() != "" {
			p.out("%s\n", t.GetDiff())
		} else if t != nil && t.GetContent() != "" && t.GetOperation() == cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED {
			p.out("%s\n", t.GetContent())
		}
		ok, text := p.prompt(fmt.Sprintf("Allow %s? [y/N or feedback] ", what))
		if ok {
			reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
		} else {
			reply(cairnv1.AskResponse_ASK_RESPONSE_REJECT, text)
		}
	case cairnv1.AskKind_ASK_KIND_FOLLOWUP, cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND:
		q := m.GetText()
		if f := m.GetFollowup(); f != nil && f.GetQuestion() != "" {
			q = f.GetQuestion()
		}
		p.out("? %s\n", q)
		for i, o := range m.GetFollowup().GetOptions() {
			p.out("  %d. %s\n", i+1, o)
		}
		if !p.io.TTY {
			if p.json {
				p.io.errf("%s\n", q)
			}
			p.cancelTask()
			return exitNeedsUser, true
		}
		line := p.readLine("> ")
		if n := optionIndex(line, len(m.GetFollowup().GetOptions())); n > 0 {
			line = m.GetFollowup().GetOptions()[n-1]
		}
		reply(cairnv1.AskResponse_ASK_RESPONSE_MESSAGE, line)
	case cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT:
		if !p.io.TTY {
			return exitOK, true
		}
		line := p.readLine("Feedback (Enter to finish): ")
		if strings.TrimSpace(line) == "" {
			reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
			return exitOK, true
		}
		reply(cairnv1.AskResponse_ASK_RESPONSE_MESSAGE, line)
	case cairnv1.AskKind_ASK_KIND_RESUME_TASK, cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK:
		text := ""
		if p.io.TTY {
			text = p.readLine("Resume with a message (Enter to just resume): ")
		}
		if text != "" {
			reply(cairnv1.AskResponse_ASK_RESPONSE_MESSAGE, text)
		} else {
			reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
		}
	case cairnv1.AskKind_ASK_KIND_API_REQ_FAILED, cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED:
		if !p.json {
			p.io.errf("cairn: %s\n", strings.TrimSpace(m.GetText()))
		}
		if !p.io.TTY {
			p.cancelTask()
			return exitFailure, true
		}
		if ok, text := p.prompt("Try again? [y/N] "); ok || text != "" {
			reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, text)
		} else {
			p.cancelTask()
			return exitFailure, true
		}
	case cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED, cairnv1.AskKind_ASK_KIND_REPEATED_TOOL_CALL:
		// A guard rail stopped the task: without a terminal nobody can decide to go on.
		if !p.json || !p.io.TTY {
			p.io.errf("cairn: %s\n", strings.TrimSpace(m.GetText()))
		}
		if !p.io.TTY {
			p.cancelTask()
			return exitNeedsUser, true
		}
		if ok, text := p.prompt("Continue? [y/N or guidance] "); ok || text != "" {
			reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, text)
		} else {
			reply(cairnv1.AskResponse_ASK_RESPONSE_REJECT, "")
		}
	case cairnv1.AskKind_ASK_KIND_AUTO_APPROVAL_MAX_REQ_REACHED:
		if !p.io.TTY {
			p.cancelTask()
			return exitNeedsUser, true
		}
		if ok, _ := p.prompt("Cairn reached the auto-approve limit. Continue? [y/N] "); ok {
			reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
		} else {
			reply(cairnv1.AskResponse_ASK_RESPONSE_REJECT, "")
		}
	case cairnv1.AskKind_ASK_KIND_NEW_TASK, cairnv1.AskKind_ASK_KIND_CONDENSE:
		reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
		if m.GetAsk() == cairnv1.AskKind_ASK_KIND_NEW_TASK {
			p.out("Cairn suggests a new task with this context:\n%s\n", m.GetNewTask().GetContext())
			return exitOK, true
		}
	}
	return 0, false
}

// denialHint says why an ask was denied without a terminal and what would let it through. A
// command Cairn always asks about (deny list, or a line it cannot read) gets no flag advice:
// no flag allows it, --yolo included.
func (p *printer) denialHint(m *cairnv1.Message, flagName string) string {
	if d := m.GetCommand().GetSandboxDenied(); d != "" {
		return "a rerun with more access than the sandbox gave it is yours to approve, never an auto-approval's (" +
			strings.Join(strings.Fields(d), " ") + "); approve it by running cairn at a terminal, or run it yourself"
	}
	if sb := m.GetCommand().GetSandbox(); strings.HasPrefix(sb, "no sandbox here") {
		return "no command sandbox can be set up here, so every command asks (" + sb +
			"); approve it by running cairn at a terminal, or turn the sandbox off with --no-sandbox"
	}
	if c := m.GetCommand(); c != nil {
		why := "it is on the command deny list"
		script, err := shellcmd.Parse(c.GetCommand())
		hit, denied := shellcmd.Hit{}, false
		if err == nil {
			hit, denied = script.Denied(config.DefaultDenyList)
		}
		switch {
		case err != nil:
			why, denied = "Cairn cannot read it as a shell command", true
		case denied && hit.Entry != "":
			why = "it matches the deny-list entry `" + hit.Entry + "`"
		case denied:
			why = hit.Reason
		}
		if denied || p.yolo {
			return why + ", so Cairn always asks about it, even with --yolo; approve it by running cairn at a terminal, or run it yourself"
		}
	}
	if out := m.GetCommand().GetOutsideWrite(); out != "" && !p.yolo {
		return "it writes " + out + ", outside the workspace; run with --auto-approve " + flagName +
			",edit,outside (or --yolo) to allow it"
	}
	if in := m.GetCommand().GetOutsideRead(); in != "" && !p.yolo && protectedReason(m) == "" {
		return "it reads " + in + ", outside the workspace; run with --auto-approve read,outside or --auto-approve " +
			flagName + " (or --yolo) to allow it"
	}
	if why := protectedReason(m); why != "" && !p.yolo {
		return "protected: " + why + "; run with --auto-approve " + flagName + ",protected (or --yolo) to allow it"
	}
	if p.yolo {
		return "this needs approval even with --yolo; approve it by running cairn at a terminal"
	}
	if t := m.GetMcp().GetToolName(); t != "" {
		return "not auto-approved; run with --auto-approve mcp and add \"" + t + "\" to the server's autoApprove list in " +
			mcpSettingsFile + " (or use --yolo) to allow it"
	}
	return "not auto-approved; run with --auto-approve " + flagName + " (or --yolo) to allow it"
}

// protectedReason is why the ask's file or command touches a protected path ("" if it does not).
func protectedReason(m *cairnv1.Message) string {
	if c := m.GetCommand(); c != nil {
		return c.GetProtectedReason()
	}
	return m.GetTool().GetProtectedReason()
}

func describeAsk(m *cairnv1.Message) (what, flag string) {
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_COMMAND:
		return "command `" + m.GetCommand().GetCommand() + "`", "command"
	case cairnv1.AskKind_ASK_KIND_BROWSER_ACTION_LAUNCH:
		return "browser " + m.GetBrowser().GetUrl(), webCategory(m.GetBrowser().GetUrl())
	case cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER:
		return "MCP " + m.GetMcp().GetServerName() + "/" + m.GetMcp().GetToolName(), "mcp"
	}
	t := m.GetTool()
	switch t.GetOperation() {
	case cairnv1.ToolOperation_TOOL_OPERATION_EDITED_EXISTING_FILE, cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED:
		return "edit of " + t.GetPath(), "edit"
	case cairnv1.ToolOperation_TOOL_OPERATION_USE_SUBAGENTS:
		return "starting read-only subagents", "read"
	case cairnv1.ToolOperation_TOOL_OPERATION_WEB_FETCH:
		return "fetching " + t.GetPath(), webCategory(t.GetPath())
	}
	return "reading " + t.GetPath(), "read"
}

// webCategory is the --auto-approve word for a web_fetch or browser ask of raw: "local" for
// a page on this machine or the local network (tools.CategoryLocal), else "browser".
func webCategory(raw string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	u, err := url.Parse(raw)
	if err == nil && tools.ClassifyHost(ctx, u.Hostname(), nil) == tools.AddrLocal {
		return "local"
	}
	return "browser"
}

func optionIndex(s string, n int) int {
	var i int
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d", &i); err == nil && i >= 1 && i <= n && fmt.Sprint(i) == strings.TrimSpace(s) {
		return i
	}
	return 0
}

func (p *printer) readLine(prompt string) string {
	p.io.errf("%s", prompt)
	line, err := p.in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return strings.TrimRight(line, "\r\n")
}

// prompt asks y/N; any other text is feedback (a rejection with a message).
func (p *printer) prompt(q string) (bool, string) {
	line := strings.TrimSpace(p.readLine(q))
	switch strings.ToLower(line) {
	case "y", "yes":
		return true, ""
	case "", "n", "no":
		return false, ""
	}
	return false, line
}
