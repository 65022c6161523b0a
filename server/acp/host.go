package acp

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// pollEvery is how often a command in the client's terminal is asked for its output while it
// runs: the protocol has no output notifications, only terminal/output.
const pollEvery = 150 * time.Millisecond

// terminalOutputLimit is the output the client keeps for a command (terminal/create's
// outputByteLimit); the task keeps its own copy as it streams.
const terminalOutputLimit = 4 << 20

// bridge is a session's host in the daemon (README "Use Cairn in Zed, JetBrains, Neovim",
// "Files and terminals"): a HostBridgeService connection whose hello offers what the client
// offers. The daemon then reads files through fs/read_text_file, saves edits through
// fs/write_text_file and runs commands in terminal/create, and uses its own disk and runner
// for what the client does not offer. Every check on a path (ignore file, protected paths,
// PLAN mode, approvals) is the task's and happens before a request reaches the bridge.
type bridge struct {
	s  *session
	id string
	// terminal is set when the client offers terminals: commands then run there.
	terminal bool
	stream   cairnv1.HostBridgeService_ConnectClient
	cancel   context.CancelFunc
	done     chan struct{}

	sendMu sync.Mutex

	mu sync.Mutex
	// diffs are the proposals of open diff sessions: nothing reaches the client before Save.
	diffs map[string]*proposal
	// terminals are the client's terminals of running commands, by command id, until the
	// command was read to its end and its terminal released.
	terminals map[string]string
	// killed are the commands whose terminal/kill was sent: a command is killed once,
	// whether the session's cancel or the daemon asks first.
	killed map[string]bool
}

// proposal is an edit waiting for its save.
type proposal struct {
	path, content string
}

// offers says whether the client's capabilities give the session a host of its own.
func offers(c sdk.ClientCapabilities) bool {
	return c.Fs.ReadTextFile || c.Fs.WriteTextFile || c.Terminal
}

// openBridge connects the session's host and waits for the daemon's welcome.
func (s *session) openBridge(ctx context.Context, c sdk.ClientCapabilities, ide string) (*bridge, error) {
	bctx, cancel := context.WithCancel(s.a.ctx)
	stream, err := s.a.o.Bridge.Connect(bctx)
	if err != nil {
		cancel()
		return nil, err
	}
	hello := &hostv1.Hello{Client: "acp", IdeName: ide, WorkspaceFolders: s.roots, Shell: shell(),
		DiffView: c.Fs.WriteTextFile, Terminal: c.Terminal, ReadFile: c.Fs.ReadTextFile, ClientId: "acp-" + string(s.id)}
	if err := stream.Send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{Hello: hello}}); err != nil {
		cancel()
		return nil, err
	}
	type welcome struct {
		w   *hostv1.Welcome
		err error
	}
	got := make(chan welcome, 1)
	go func() {
		m, err := stream.Recv()
		got <- welcome{m.GetWelcome(), err}
	}()
	var w welcome
	select {
	case w = <-got:
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	if w.err == nil && w.w == nil {
		w.err = errors.New("the daemon did not welcome the host")
	}
	if w.err != nil {
		cancel()
		return nil, w.err
	}
	b := &bridge{s: s, id: w.w.GetHostId(), terminal: c.Terminal, stream: stream, cancel: cancel, done: make(chan struct{}),
		diffs: map[string]*proposal{}, terminals: map[string]string{},
		killed: map[string]bool{}}
	go b.serve(bctx)
	return b, nil
}

// connectHost gives the session a host of its own when the client offers files or a
// terminal; a session without one uses the daemon's disk and runner.
func (s *session) connectHost(ctx context.Context) error {
	s.a.mu.Lock()
	caps, ide := s.a.caps, s.a.ide
	s.a.mu.Unlock()
	if s.a.o.Bridge == nil || !offers(caps) {
		return nil
	}
	b, err := s.openBridge(ctx, caps, ide)
	if err != nil {
		return rpcError("connecting the editor's files and terminal", err)
	}
	s.mu.Lock()
	s.host = b
	s.mu.Unlock()
	return nil
}

// hostID is the session's host in the daemon; "" is the daemon's own.
func (s *session) hostID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.host == nil {
		return ""
	}
	return s.host.id
}

// close ends the connection; the daemon then uses its own host for the task.
func (b *bridge) close() {
	b.cancel()
	<-b.done
}

// shell is what runs a command line in the client's terminal.
func shell() string {
	if runtime.GOOS == "windows" {
		return "cmd.exe"
	}
	return "/bin/sh"
}

func (b *bridge) serve(ctx context.Context) {
	defer close(b.done)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		m, err := b.stream.Recv()
		if err != nil {
			if ctx.Err() == nil {
				b.s.a.log.Warn("acp: the session's host connection ended", "session", b.s.id, "err", err)
			}
			return
		}
		req := m.GetRequest()
		if req == nil {
			continue
		}
		// Each request is answered on its own: a command's start must not wait behind a read.
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.answer(ctx, req)
		}()
	}
}

func (b *bridge) send(m *cairnv1.ConnectRequest) error {
	b.sendMu.Lock()
	defer b.sendMu.Unlock()
	return b.stream.Send(m)
}

func (b *bridge) respond(r *hostv1.Response) {
	if err := b.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Response{Response: r}}); err != nil {
		b.s.a.log.Warn("acp: answering the daemon", "err", err)
	}
}

func (b *bridge) event(e *hostv1.Event) error {
	return b.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: e}})
}

var empty = &hostv1.Response_Empty{Empty: &hostv1.Empty{}}

// answer does one request of the daemon through the client.
func (b *bridge) answer(ctx context.Context, req *hostv1.Request) {
	if d := req.GetDeadlineMs(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(d)*time.Millisecond)
		defer cancel()
	}
	resp := &hostv1.Response{Id: req.GetId()}
	conn := b.s.a.connection()
	sid := b.s.id
	switch r := req.Request.(type) {
	case *hostv1.Request_ReadFile:
		got, err := conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sid, Path: r.ReadFile.GetPath()})
		if err != nil {
			resp.Error = clientError(err)
			break
		}
		resp.Result = &hostv1.Response_ReadFile{ReadFile: &hostv1.ReadFileResult{Text: got.Content}}
	case *hostv1.Request_OpenDiff:
		b.mu.Lock()
		b.diffs[r.OpenDiff.GetSessionId()] = &proposal{path: r.OpenDiff.GetPath(), content: r.OpenDiff.GetOriginal()}
		b.mu.Unlock()
		resp.Result = empty
	case *hostv1.Request_UpdateDiff:
		b.mu.Lock()
		p := b.diffs[r.UpdateDiff.GetSessionId()]
		if p != nil {
			p.content = r.UpdateDiff.GetContent()
		}
		b.mu.Unlock()
		if p == nil {
			resp.Error = "no such diff session"
			break
		}
		resp.Result = empty
	case *hostv1.Request_SaveDiff:
		b.mu.Lock()
		p := b.diffs[r.SaveDiff.GetSessionId()]
		delete(b.diffs, r.SaveDiff.GetSessionId())
		b.mu.Unlock()
		if p == nil {
			resp.Error = "no such diff session"
			break
		}
		// The edit lands in the editor's buffer; a refusal leaves the file as it was.
		if _, err := conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sid, Path: p.path, Content: p.content}); err != nil {
			resp.Error = "the editor did not save " + p.path + ": " + clientError(err)
			break
		}
		resp.Result = &hostv1.Response_SaveDiff{SaveDiff: &hostv1.SaveDiffResult{SavedContent: p.content}}
	case *hostv1.Request_RevertDiff:
		// Nothing was written before the save: dropping the proposal reverts it.
		b.mu.Lock()
		delete(b.diffs, r.RevertDiff.GetSessionId())
		b.mu.Unlock()
		resp.Result = empty
	case *hostv1.Request_RunCommand:
		if err := b.run(ctx, r.RunCommand); err != nil {
			resp.Error = clientError(err)
			break
		}
		resp.Result = &hostv1.Response_RunCommand{RunCommand: &hostv1.RunCommandResult{TerminalName: "editor terminal"}}
	case *hostv1.Request_KillCommand:
		if err := b.kill(ctx, r.KillCommand.GetCommandId()); err != nil {
			resp.Error = clientError(err)
			break
		}
		resp.Result = empty
	default:
		resp.Error = "not offered by this editor"
	}
	b.respond(resp)
}

// kill kills a command's terminal, once: a command already killed, or no longer running,
// is left alone.
func (b *bridge) kill(ctx context.Context, commandID string) error {
	b.mu.Lock()
	tid := b.terminals[commandID]
	first := tid != "" && !b.killed[commandID]
	if first {
		b.killed[commandID] = true
	}
	b.mu.Unlock()
	if !first {
		return nil
	}
	_, err := b.s.a.connection().KillTerminal(ctx, sdk.KillTerminalRequest{SessionId: b.s.id, TerminalId: tid})
	return err
}

// killAll kills every command running in the client's terminals (a cancelled turn).
func (b *bridge) killAll(ctx context.Context) {
	b.mu.Lock()
	ids := make([]string, 0, len(b.terminals))
	for id := range b.terminals {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		if err := b.kill(ctx, id); err != nil {
			b.s.a.log.Warn("acp: killing a command in the client's terminal", "err", err)
		}
	}
}

// idleEvery is how often idle looks whether the commands have ended.
const idleEvery = 10 * time.Millisecond

// idle waits until no command runs in the client's terminals (each read to its end and its
// terminal released) or deadline passes; it reports whether none runs.
func (b *bridge) idle(deadline time.Time) bool {
	for {
		b.mu.Lock()
		n := len(b.terminals)
		b.mu.Unlock()
		if n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(idleEvery)
	}
}

// clientError is the text of an error the client answered with.
func clientError(err error) string {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		if d, ok := re.Data.(map[string]any); ok {
			if e, ok := d["error"].(string); ok && e != "" {
				return re.Message + ": " + e
			}
		}
		return re.Message
	}
	return err.Error()
}

// run starts a command in a terminal of the client and follows it until it exits: its output
// as CommandOutput events, then its CommandExit. The terminal is released afterwards. A
// command the daemon runs in the sandbox comes as the launcher's argv (docs/sandbox.md):
// terminal/create then starts the launcher, which runs the user's command under its policy
// and exits with its exit code. What the client shows of the command (tool call titles,
// permission requests) is the task's and names the user's command.
func (b *bridge) run(ctx context.Context, rc *hostv1.RunCommandRequest) error {
	conn := b.s.a.connection()
	command, args := shell(), []string{"-c", rc.GetCommand()}
	if runtime.GOOS == "windows" {
		args = []string{"/d", "/s", "/c", rc.GetCommand()}
	}
	if argv := rc.GetArgv(); len(argv) > 0 {
		command, args = argv[0], argv[1:]
	}
	req := sdk.CreateTerminalRequest{SessionId: b.s.id, Command: command, Args: args, OutputByteLimit: sdk.Ptr(terminalOutputLimit)}
	if rc.GetCwd() != "" {
		req.Cwd = sdk.Ptr(rc.GetCwd())
	}
	t, err := conn.CreateTerminal(ctx, req)
	if err != nil {
		return err
	}
	id := rc.GetCommandId()
	b.mu.Lock()
	b.terminals[id] = t.TerminalId
	b.mu.Unlock()
	line := rc.GetDisplayCommand()
	if line == "" {
		line = rc.GetCommand()
	}
	if err := b.s.terminalStarted(t.TerminalId, line); err != nil {
		b.s.a.log.Warn("acp: showing the client's terminal in its tool call", "err", err)
	}
	// The command outlives the request that started it: it is followed for as long as the
	// connection lasts.
	go b.follow(b.s.a.ctx, id, t.TerminalId)
	return nil
}

// follow streams a terminal's output until the command exits.
func (b *bridge) follow(ctx context.Context, commandID, terminalID string) {
	conn := b.s.a.connection()
	sid := b.s.id
	exited := make(chan int, 1)
	go func() {
		code := -1
		w, err := conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: terminalID})
		if err != nil {
			b.s.a.log.Warn("acp: waiting for a command in the client's terminal", "err", err)
		} else if w.ExitCode != nil {
			code = *w.ExitCode
		}
		exited <- code
	}()
	sent := ""
	flush := func() {
		o, err := conn.TerminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: terminalID})
		if err != nil {
			b.s.a.log.Warn("acp: reading a command's output in the client's terminal", "err", err)
			return
		}
		d := delta(sent, o.Output)
		sent = o.Output
		if d == "" {
			return
		}
		if err := b.event(&hostv1.Event{Event: &hostv1.Event_CommandOutput{CommandOutput: &hostv1.CommandOutput{
			CommandId: commandID, Data: d}}}); err != nil {
			b.s.a.log.Warn("acp: passing on a command's output", "err", err)
		}
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	code := -1
loop:
	for {
		select {
		case code = <-exited:
			break loop
		case <-tick.C:
			flush()
		case <-ctx.Done():
			break loop
		}
	}
	flush()
	// The terminal is released before the daemon hears of the exit: the exit ends the
	// command's tool call and may end the turn, whose answer comes after all of it.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := conn.ReleaseTerminal(rctx, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: terminalID}); err != nil {
		b.s.a.log.Warn("acp: releasing the client's terminal", "err", err)
	}
	if err := b.event(&hostv1.Event{Event: &hostv1.Event_CommandExit{CommandExit: &hostv1.CommandExit{
		CommandId: commandID, ExitCode: int32(code)}}}); err != nil {
		b.s.a.log.Warn("acp: passing on a command's exit", "err", err)
	}
	b.mu.Lock()
	delete(b.terminals, commandID)
	delete(b.killed, commandID)
	b.mu.Unlock()
}

// delta is what output holds beyond what was sent. When the client dropped the output's
// start (its byte limit), what follows the longest end of sent that output starts with is new.
func delta(sent, output string) string {
	if strings.HasPrefix(output, sent) {
		return output[len(sent):]
	}
	for k := min(len(sent), len(output)); k > 0; k-- {
		if strings.HasPrefix(output, sent[len(sent)-k:]) {
			return output[k:]
		}
	}
	return output
}
