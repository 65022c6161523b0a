package servertest

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Host is a fake editor on the real bridge stream. Diffs are kept in memory and written on
// save; commands run with os/exec and stream their output as events.
type Host struct {
	ID string
	e  *Env

	// OnSave, when set, turns the proposal into what the "user" saves (edits, formatting).
	OnSave func(path, proposal string) string
	// Visible and Tabs are what the editor shows.
	Visible, Tabs []string
	Diags         []*hostv1.Diagnostic

	stream cairnv1.HostBridgeService_ConnectClient
	cancel context.CancelFunc

	// mu guards everything below.
	mu       sync.Mutex
	sendMu   sync.Mutex
	sessions map[string]*diffState
	Opened   []string // paths of opened diffs
	Reverted []string
	Saved    []string
	// MultiDiffs are the multi-file diffs shown (checkpoint compare).
	MultiDiffs []*hostv1.MultiDiffRequest
	cmds       map[string]*exec.Cmd
	// model is the language model the host offers (nil: none); chats are the running chats'
	// cancel signals, LmRequests every chat request and LmCancelled the chats cancelled.
	model       *EditorModel
	chats       map[string]chan struct{}
	LmRequests  []*hostv1.LmChatRequest
	LmCancelled []string
}

type diffState struct {
	path, original, proposal string
	isNew                    bool
	created                  []string
}

// ConnectHost opens the bridge and waits for the welcome.
func (e *Env) ConnectHost() *Host {
	e.T.Helper()
	return e.ConnectHostAs("")
}

// ConnectHostAs opens the bridge as the window with a stable client id (a reconnect of that
// window when it connected before) and waits for the welcome.
func (e *Env) ConnectHostAs(clientID string) *Host {
	e.T.Helper()
	return e.connectHost(clientID, nil)
}

// connectHost opens the bridge; with model set the host also offers that language model
// (lm.go).
func (e *Env) connectHost(clientID string, model *EditorModel) *Host {
	e.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := e.Bridge.Connect(ctx)
	if err != nil {
		cancel()
		e.T.Fatalf("Connect: %v", err)
	}
	if err := stream.Send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{Hello: &hostv1.Hello{
		Client: "test", IdeName: "TestEditor", WorkspaceFolders: []string{e.Workspace}, DiffView: true, Terminal: true, Editor: true, ClientId: clientID,
		LanguageModels: model != nil}}}); err != nil {
		cancel()
		e.T.Fatalf("hello: %v", err)
	}
	first, err := stream.Recv()
	if err != nil || first.GetWelcome() == nil {
		cancel()
		e.T.Fatalf("welcome: %v %v", first, err)
	}
	h := &Host{ID: first.GetWelcome().GetHostId(), e: e, stream: stream, cancel: cancel,
		sessions: map[string]*diffState{}, cmds: map[string]*exec.Cmd{}, model: model, chats: map[string]chan struct{}{}}
	e.T.Cleanup(cancel)
	go h.serve()
	return h
}

// Close disconnects the host.
func (h *Host) Close() { h.cancel() }

func (h *Host) send(m *cairnv1.ConnectRequest) {
	h.sendMu.Lock()
	defer h.sendMu.Unlock()
	_ = h.stream.Send(m)
}

func (h *Host) respond(id string, resp *hostv1.Response) {
	resp.Id = id
	h.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Response{Response: resp}})
}

func empty() *hostv1.Response {
	return &hostv1.Response{Result: &hostv1.Response_Empty{Empty: &hostv1.Empty{}}}
}

func (h *Host) serve() {
	for {
		m, err := h.stream.Recv()
		if err != nil {
			return
		}
		req := m.GetRequest()
		if req == nil {
			continue
		}
		go h.handle(req)
	}
}

func (h *Host) handle(req *hostv1.Request) {
	switch r := req.Request.(type) {
	case *hostv1.Request_OpenDiff:
		d := &diffState{path: r.OpenDiff.GetPath(), original: r.OpenDiff.GetOriginal(), isNew: r.OpenDiff.GetIsNew()}
		if d.isNew {
			// Like VS Code: the new file exists (empty) while its diff is open.
			d.created = mkdirTracked(filepath.Dir(d.path))
			_ = os.WriteFile(d.path, nil, 0o644)
		}
		h.mu.Lock()
		h.sessions[r.OpenDiff.GetSessionId()] = d
		h.Opened = append(h.Opened, d.path)
		h.mu.Unlock()
		h.respond(req.GetId(), empty())
	case *hostv1.Request_UpdateDiff:
		h.mu.Lock()
		if d := h.sessions[r.UpdateDiff.GetSessionId()]; d != nil {
			d.proposal = r.UpdateDiff.GetContent()
		}
		h.mu.Unlock()
		h.respond(req.GetId(), empty())
	case *hostv1.Request_SaveDiff:
		h.mu.Lock()
		d := h.sessions[r.SaveDiff.GetSessionId()]
		delete(h.sessions, r.SaveDiff.GetSessionId())
		onSave := h.OnSave
		h.mu.Unlock()
		if d == nil {
			h.respond(req.GetId(), &hostv1.Response{Error: "no such diff"})
			return
		}
		text := d.proposal
		if onSave != nil {
			text = onSave(d.path, text)
		}
		if err := os.WriteFile(d.path, []byte(text), 0o644); err != nil {
			h.respond(req.GetId(), &hostv1.Response{Error: err.Error()})
			return
		}
		h.mu.Lock()
		h.Saved = append(h.Saved, d.path)
		h.mu.Unlock()
		h.respond(req.GetId(), &hostv1.Response{Result: &hostv1.Response_SaveDiff{SaveDiff: &hostv1.SaveDiffResult{SavedContent: text}}})
	case *hostv1.Request_RevertDiff:
		h.mu.Lock()
		d := h.sessions[r.RevertDiff.GetSessionId()]
		delete(h.sessions, r.RevertDiff.GetSessionId())
		if d != nil {
			h.Reverted = append(h.Reverted, d.path)
		}
		h.mu.Unlock()
		if d != nil && d.isNew {
			_ = os.Remove(d.path)
			for i := len(d.created) - 1; i >= 0; i-- {
				_ = os.Remove(d.created[i])
			}
		}
		h.respond(req.GetId(), empty())
	case *hostv1.Request_RunCommand:
		h.run(req.GetId(), r.RunCommand)
	case *hostv1.Request_KillCommand:
		h.mu.Lock()
		c := h.cmds[r.KillCommand.GetCommandId()]
		h.mu.Unlock()
		if c != nil && c.Process != nil {
			_ = c.Process.Kill()
		}
		h.respond(req.GetId(), empty())
	case *hostv1.Request_VisibleFiles:
		h.respond(req.GetId(), &hostv1.Response{Result: &hostv1.Response_Paths{Paths: &hostv1.PathsResult{Paths: h.Visible}}})
	case *hostv1.Request_OpenTabs:
		h.respond(req.GetId(), &hostv1.Response{Result: &hostv1.Response_Paths{Paths: &hostv1.PathsResult{Paths: h.Tabs}}})
	case *hostv1.Request_WorkspaceFolders:
		h.respond(req.GetId(), &hostv1.Response{Result: &hostv1.Response_Paths{Paths: &hostv1.PathsResult{Paths: []string{h.e.Workspace}}}})
	case *hostv1.Request_MultiDiff:
		h.mu.Lock()
		h.MultiDiffs = append(h.MultiDiffs, r.MultiDiff)
		h.mu.Unlock()
		h.respond(req.GetId(), empty())
	case *hostv1.Request_Diagnostics:
		h.respond(req.GetId(), &hostv1.Response{Result: &hostv1.Response_Diagnostics{Diagnostics: &hostv1.DiagnosticsResult{Diagnostics: h.Diags}}})
	case *hostv1.Request_LmModels, *hostv1.Request_LmChat, *hostv1.Request_LmCancel:
		h.handleLM(req)
	default:
		h.respond(req.GetId(), empty())
	}
}

func (h *Host) run(reqID string, r *hostv1.RunCommandRequest) {
	cmd := exec.Command("/bin/sh", "-c", r.GetCommand())
	cmd.Dir = r.GetCwd()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		h.respond(reqID, &hostv1.Response{Error: err.Error()})
		return
	}
	h.mu.Lock()
	h.cmds[r.GetCommandId()] = cmd
	h.mu.Unlock()
	h.respond(reqID, &hostv1.Response{Result: &hostv1.Response_RunCommand{RunCommand: &hostv1.RunCommandResult{ShellIntegration: true, TerminalName: "Cairn"}}})
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				h.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: &hostv1.Event{Event: &hostv1.Event_CommandOutput{
					CommandOutput: &hostv1.CommandOutput{CommandId: r.GetCommandId(), Data: string(buf[:n])}}}}})
			}
			if err != nil {
				close(done)
				return
			}
		}
	}()
	err := cmd.Wait()
	_ = pw.Close() // io.PipeWriter.Close always returns nil; it ends the reader above
	<-done
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	h.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: &hostv1.Event{Event: &hostv1.Event_CommandExit{
		CommandExit: &hostv1.CommandExit{CommandId: r.GetCommandId(), ExitCode: int32(code)}}}}})
}

func mkdirTracked(dir string) []string {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	_ = os.MkdirAll(dir, 0o755)
	return missing
}

// Session returns the id of the diff view open for path ("" when none is).
func (h *Host) Session(path string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, d := range h.sessions {
		if d.path == path {
			return id
		}
	}
	return ""
}

// Decide presses Save (approved) or Reject in the editor on a diff view.
func (h *Host) Decide(sessionID string, approved bool) {
	h.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: &hostv1.Event{Event: &hostv1.Event_DiffDecision{
		DiffDecision: &hostv1.DiffDecision{SessionId: sessionID, Approved: approved}}}}})
}

// Counts returns how many diffs were opened, saved and reverted.
func (h *Host) Counts() (opened, saved, reverted int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.Opened), len(h.Saved), len(h.Reverted)
}
