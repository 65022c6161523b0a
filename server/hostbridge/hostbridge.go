// Package hostbridge adapts HostBridgeService.Connect streams to core's host interfaces: each
// connected editor (or CLI, or test fake) becomes a tools.Host whose diff views, terminals and
// editor queries are requests on its stream, answered by id.
//
// A host is known by a stable id (the client id its hello gives, the same across reconnects of
// one editor window), not by its connection: tasks hold a Ref that looks the connection up on
// every call and uses a fallback host while none is connected. Diff sessions opened through a
// Ref remember it, so a Save/Reject pressed in the editor reaches the one task that owns the
// diff (Registry.OnDiffDecision).
package hostbridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/tools"
)

// ErrHostGone is returned for requests to a host whose stream ended.
var ErrHostGone = errors.New("the editor disconnected")

// DefaultDeadline is how long a request waits for the host unless it says otherwise. Saving a
// diff waits for the user only through the daemon's own ask, never here.
const DefaultDeadline = 60 * time.Second

// Registry holds the connected hosts.
type Registry struct {
	version string
	// Logger receives bug reports and failures nobody else sees (nil: discarded).
	Logger *slog.Logger
	// OnDiffDecision is called when a user presses Save or Reject in the editor on a diff that
	// was opened through owner and whose proposal is complete (its approval may be open). It
	// is called on the host's receiving goroutine: it must not block on that host.
	OnDiffDecision func(owner *Ref, approved bool)
	// OnGone is called when the last connection of the host with stable id id ended (the
	// window closed, or its bridge dropped: it may reconnect). It must not block.
	OnGone func(id string)

	// mu guards hosts and sessions.
	mu sync.Mutex
	// hosts are the live connections by stable id; a reconnect replaces the entry.
	hosts map[string]*Host
	// sessions are the open diff sessions opened through a Ref, by session id.
	sessions map[string]*diffSession
}

// NewRegistry returns an empty registry.
func NewRegistry(version string) *Registry {
	return &Registry{version: version, hosts: map[string]*Host{}, sessions: map[string]*diffSession{}}
}

func (r *Registry) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

// recoverBug turns a panic on one of the bridge's goroutines into a bug report in the daemon
// log, never a dead daemon (the same rule as a task's goroutines).
func (r *Registry) recoverBug(doing string) {
	if v := recover(); v != nil {
		r.logger().Error("bug: host bridge goroutine panicked", "doing", doing, "panic", v, "stack", string(debug.Stack()))
	}
}

// Get returns the connection currently serving the host with stable id id.
func (r *Registry) Get(id string) (*Host, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.hosts[id]
	return h, ok
}

// decide routes a Save/Reject from the host with stable id hostID to the owner of the diff
// session, when that host opened it and its proposal is final; anything else (an unknown or
// finished session, another window's session, a diff still streaming) is dropped.
func (r *Registry) decide(hostID, sessionID string, approved bool) {
	r.mu.Lock()
	s := r.sessions[sessionID]
	ok := s != nil && s.hostID == hostID && s.final && s.owner != nil
	r.mu.Unlock()
	if ok && r.OnDiffDecision != nil {
		r.OnDiffDecision(s.owner, approved)
	}
}

// Stream is the server side of a Connect stream.
type Stream interface {
	Send(*cairnv1.ConnectResponse) error
	Recv() (*cairnv1.ConnectRequest, error)
	Context() context.Context
}

// Serve runs one host connection until the stream ends.
func (r *Registry) Serve(stream Stream) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	hello := first.GetHello()
	if hello == nil {
		return fmt.Errorf("hostbridge: the first message must be hello")
	}
	h := &Host{
		conn: newID(), hello: hello, stream: stream, r: r,
		pending:  map[string]chan *hostv1.Response{},
		commands: map[string]*remoteProcess{},
		chats:    map[string]*lmChat{},
		done:     make(chan struct{}),
	}
	h.id = hello.GetClientId()
	if h.id == "" {
		h.id = h.conn
	}
	// A reconnect of the same window replaces the old connection for every new call; calls
	// already sent on the old one finish (or fail) there.
	r.mu.Lock()
	r.hosts[h.id] = h
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		gone := r.hosts[h.id] == h
		if gone {
			delete(r.hosts, h.id)
		}
		r.mu.Unlock()
		h.close()
		if gone && r.OnGone != nil {
			r.OnGone(h.id)
		}
	}()
	if err := h.send(&cairnv1.ConnectResponse{Message: &cairnv1.ConnectResponse_Welcome{
		Welcome: &hostv1.Welcome{HostId: h.id, DaemonVersion: r.version, ConnectionId: h.conn}}}); err != nil {
		return err
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) || stream.Context().Err() != nil {
				return nil
			}
			return err
		}
		switch v := m.Message.(type) {
		case *cairnv1.ConnectRequest_Response:
			h.deliver(v.Response)
		case *cairnv1.ConnectRequest_Event:
			h.event(v.Event)
		}
	}
}

// Host is one connection of an editor.
type Host struct {
	id     string // stable across reconnects (the hello's client id, else conn)
	conn   string // this connection only
	hello  *hostv1.Hello
	stream Stream
	r      *Registry

	// sendMu serialises Send on the stream.
	sendMu sync.Mutex

	// mu guards pending, commands, chats and closed.
	mu       sync.Mutex
	pending  map[string]chan *hostv1.Response
	commands map[string]*remoteProcess
	chats    map[string]*lmChat // language model requests streaming back (lm.go)
	closed   bool
	done     chan struct{}
}

// ID returns the host's stable id, given in Welcome (the same for every connection of one
// editor window that sends a client id).
func (h *Host) ID() string { return h.id }

// ConnectionID returns the id of this connection alone.
func (h *Host) ConnectionID() string { return h.conn }

// Hello returns what the host said about itself.
func (h *Host) Hello() *hostv1.Hello { return h.hello }

// Done is closed when the host disconnects.
func (h *Host) Done() <-chan struct{} { return h.done }

func (h *Host) send(m *cairnv1.ConnectResponse) error {
	h.sendMu.Lock()
	defer h.sendMu.Unlock()
	return h.stream.Send(m)
}

func (h *Host) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	for id, ch := range h.pending {
		close(ch)
		delete(h.pending, id)
	}
	for _, p := range h.commands {
		p.finish(-1, ErrHostGone)
	}
	for id, c := range h.chats {
		c.fail(ErrHostGone)
		delete(h.chats, id)
	}
}

// call sends a request and waits for its response.
func (h *Host) call(ctx context.Context, req *hostv1.Request) (*hostv1.Response, error) {
	req.Id = newID()
	deadline := DefaultDeadline
	if dl, ok := ctx.Deadline(); ok {
		deadline = time.Until(dl)
	}
	req.DeadlineMs = deadline.Milliseconds()
	ch := make(chan *hostv1.Response, 1)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrHostGone
	}
	h.pending[req.Id] = ch
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.pending, req.Id)
		h.mu.Unlock()
	}()
	if err := h.send(&cairnv1.ConnectResponse{Message: &cairnv1.ConnectResponse_Request{Request: req}}); err != nil {
		return nil, fmt.Errorf("hostbridge: send: %w", err)
	}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, ErrHostGone
		}
		if resp.GetError() != "" {
			return nil, fmt.Errorf("editor: %s", resp.GetError())
		}
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, fmt.Errorf("hostbridge: the editor did not answer within %s", deadline)
	}
}

func (h *Host) deliver(resp *hostv1.Response) {
	h.mu.Lock()
	ch, ok := h.pending[resp.GetId()]
	if ok {
		delete(h.pending, resp.GetId())
	}
	h.mu.Unlock()
	if ok {
		ch <- resp
	}
}

func (h *Host) event(ev *hostv1.Event) {
	switch e := ev.Event.(type) {
	case *hostv1.Event_CommandOutput:
		h.mu.Lock()
		p := h.commands[e.CommandOutput.GetCommandId()]
		h.mu.Unlock()
		if p != nil {
			p.write(e.CommandOutput.GetData())
		}
	case *hostv1.Event_CommandExit:
		h.mu.Lock()
		p := h.commands[e.CommandExit.GetCommandId()]
		delete(h.commands, e.CommandExit.GetCommandId())
		h.mu.Unlock()
		if p != nil {
			p.finish(int(e.CommandExit.GetExitCode()), nil)
		}
	case *hostv1.Event_DiffDecision:
		h.r.decide(h.id, e.DiffDecision.GetSessionId(), e.DiffDecision.GetApproved())
	case *hostv1.Event_LmPart:
		h.lmPart(e.LmPart)
	case *hostv1.Event_LmEnd:
		h.lmEnd(e.LmEnd)
	}
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Diffs returns the host's diff presenter.
func (h *Host) Diffs() tools.DiffPresenter { return diffs{h} }

// Terminal returns the host's terminal.
func (h *Host) Terminal() tools.Terminal { return terminal{h} }

// Editor returns the host's editor.
func (h *Host) Editor() tools.Editor { return editor{h} }

// DiffFile is one file of a multi-file diff: its path and the two versions shown.
type DiffFile struct {
	Path        string
	Left, Right string
}

// MultiDiff shows several file diffs in one view (a checkpoint compare).
func (h *Host) MultiDiff(ctx context.Context, title string, files []DiffFile) error {
	req := &hostv1.MultiDiffRequest{Title: title}
	for _, f := range files {
		req.Files = append(req.Files, &hostv1.DiffFile{Path: f.Path, Left: f.Left, Right: f.Right})
	}
	if _, err := h.call(ctx, &hostv1.Request{Request: &hostv1.Request_MultiDiff{MultiDiff: req}}); err != nil {
		return fmt.Errorf("hostbridge: multi-diff: %w", err)
	}
	return nil
}

type diffs struct{ h *Host }

func (d diffs) Open(ctx context.Context, abs, original string, isNew bool) (tools.DiffSession, error) {
	return d.h.openDiff(ctx, nil, abs, original, isNew)
}

// openDiff opens a diff view. A session opened for owner is registered so the editor's
// Save/Reject on it reaches owner, and its later calls go to whichever connection serves the
// host then (the editor keeps its diff views across a reconnect of the bridge).
func (h *Host) openDiff(ctx context.Context, owner *Ref, abs, original string, isNew bool) (tools.DiffSession, error) {
	s := &diffSession{h: h, r: h.r, hostID: h.id, id: newID(), owner: owner}
	if owner != nil {
		h.r.mu.Lock()
		h.r.sessions[s.id] = s
		h.r.mu.Unlock()
	}
	_, err := h.call(ctx, &hostv1.Request{Request: &hostv1.Request_OpenDiff{OpenDiff: &hostv1.OpenDiffRequest{
		SessionId: s.id, Path: abs, Original: original, IsNew: isNew}}})
	if err != nil {
		s.forget()
		return nil, err
	}
	return s, nil
}

// diffSession is one diff view in the editor. Its registry entry (when it has an owner) lives
// from Open until Save or Revert starts.
type diffSession struct {
	h      *Host // the connection that opened it
	r      *Registry
	hostID string
	id     string
	owner  *Ref // nil: opened without a Ref, decisions on it are not routed

	// final is set once the complete proposal is shown; guarded by r.mu.
	final bool
}

// ID returns the session id (DiffDecision events name it).
func (s *diffSession) ID() string { return s.id }

// conn is the connection to send to: for a session with an owner, whichever connection
// serves the host now.
func (s *diffSession) conn() *Host {
	if s.owner == nil {
		return s.h
	}
	if h, ok := s.r.Get(s.hostID); ok {
		return h
	}
	return s.h // gone: its calls fail with ErrHostGone
}

func (s *diffSession) forget() {
	s.r.mu.Lock()
	if s.r.sessions[s.id] == s {
		delete(s.r.sessions, s.id)
	}
	s.r.mu.Unlock()
}

func (s *diffSession) Update(ctx context.Context, proposed string, final bool) error {
	_, err := s.conn().call(ctx, &hostv1.Request{Request: &hostv1.Request_UpdateDiff{UpdateDiff: &hostv1.UpdateDiffRequest{
		SessionId: s.id, Content: proposed, Final: final}}})
	if err == nil && final {
		s.r.mu.Lock()
		s.final = true
		s.r.mu.Unlock()
	}
	return err
}

func (s *diffSession) Save(ctx context.Context) (string, error) {
	s.forget()
	resp, err := s.conn().call(ctx, &hostv1.Request{Request: &hostv1.Request_SaveDiff{SaveDiff: &hostv1.SaveDiffRequest{SessionId: s.id}}})
	if err != nil {
		return "", err
	}
	return resp.GetSaveDiff().GetSavedContent(), nil
}

func (s *diffSession) Revert(ctx context.Context) error {
	s.forget()
	_, err := s.conn().call(ctx, &hostv1.Request{Request: &hostv1.Request_RevertDiff{RevertDiff: &hostv1.RevertDiffRequest{SessionId: s.id}}})
	return err
}

type terminal struct{ h *Host }

func (t terminal) Run(ctx context.Context, req tools.CommandRequest) (tools.Process, error) {
	id := newID()
	p := newRemoteProcess(t.h, id)
	t.h.mu.Lock()
	if t.h.closed {
		t.h.mu.Unlock()
		return nil, ErrHostGone
	}
	t.h.commands[id] = p
	t.h.mu.Unlock()
	rc := &hostv1.RunCommandRequest{CommandId: id, Command: req.Command, Cwd: req.Cwd}
	var err error
	if req.Sandbox != nil {
		err = confine(rc, *req.Sandbox)
	}
	if err == nil {
		_, err = t.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_RunCommand{RunCommand: rc}})
	}
	if err != nil {
		t.h.mu.Lock()
		delete(t.h.commands, id)
		t.h.mu.Unlock()
		return nil, err
	}
	go func() {
		defer t.h.r.recoverBug("stopping a command in the editor's terminal")
		select {
		case <-ctx.Done():
			if err := p.Kill(); err != nil {
				t.h.r.logger().Warn("hostbridge: stopping a command in the editor's terminal", "command", id, "err", err)
			}
		case <-p.exited:
		}
	}()
	return p, nil
}

// remoteProcess is a command running in the editor's terminal; output arrives as events.
type remoteProcess struct {
	h      *Host
	id     string
	exited chan struct{}

	// mu guards buf, code, err and done; cond signals new output.
	mu   sync.Mutex
	cond *sync.Cond
	buf  []byte
	code int
	err  error
	done bool
}

func newRemoteProcess(h *Host, id string) *remoteProcess {
	p := &remoteProcess{h: h, id: id, exited: make(chan struct{}), code: -1}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *remoteProcess) write(s string) {
	p.mu.Lock()
	p.buf = append(p.buf, s...)
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *remoteProcess) finish(code int, err error) {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return
	}
	p.done, p.code, p.err = true, code, err
	close(p.exited)
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *remoteProcess) Output() io.Reader { return p }

// Read returns buffered output; io.EOF once the command exited and everything was read.
func (p *remoteProcess) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.done {
		p.cond.Wait()
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	return n, nil
}

func (p *remoteProcess) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.exited:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.code, p.err
	case <-ctx.Done():
		return -1, ctx.Err()
	}
}

func (p *remoteProcess) Kill() error {
	_, err := p.h.call(context.Background(), &hostv1.Request{Request: &hostv1.Request_KillCommand{
		KillCommand: &hostv1.KillCommandRequest{CommandId: p.id}}})
	return err
}

// Release hands the command to the user (tools.Releaser): when the editor left it running in
// its terminal, the daemon stops listening to it and its output ends here. A command the
// editor runs out of sight is not released; the caller stops it.
func (p *remoteProcess) Release() (bool, error) {
	resp, err := p.h.call(context.Background(), &hostv1.Request{Request: &hostv1.Request_ReleaseCommand{
		ReleaseCommand: &hostv1.ReleaseCommandRequest{CommandId: p.id}}})
	if err != nil {
		return false, err
	}
	if !resp.GetReleaseCommand().GetReleased() {
		return false, nil
	}
	p.h.mu.Lock()
	delete(p.h.commands, p.id)
	p.h.mu.Unlock()
	p.finish(-1, nil)
	return true, nil
}

type editor struct{ h *Host }

func (e editor) paths(ctx context.Context, req *hostv1.Request) ([]string, error) {
	resp, err := e.h.call(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetPaths().GetPaths(), nil
}

func (e editor) VisibleFiles(ctx context.Context) ([]string, error) {
	return e.paths(ctx, &hostv1.Request{Request: &hostv1.Request_VisibleFiles{VisibleFiles: &hostv1.VisibleFilesRequest{}}})
}

func (e editor) OpenTabs(ctx context.Context) ([]string, error) {
	return e.paths(ctx, &hostv1.Request{Request: &hostv1.Request_OpenTabs{OpenTabs: &hostv1.OpenTabsRequest{}}})
}

func (e editor) WorkspaceFolders(ctx context.Context) ([]string, error) {
	return e.paths(ctx, &hostv1.Request{Request: &hostv1.Request_WorkspaceFolders{WorkspaceFolders: &hostv1.WorkspaceFoldersRequest{}}})
}

var severities = lazy.Value[map[hostv1.Severity]string]{New: func() map[hostv1.Severity]string {
	return map[hostv1.Severity]string{
		hostv1.Severity_SEVERITY_ERROR: "error", hostv1.Severity_SEVERITY_WARNING: "warning",
		hostv1.Severity_SEVERITY_INFORMATION: "information", hostv1.Severity_SEVERITY_HINT: "hint",
	}
}}

func (e editor) Diagnostics(ctx context.Context, paths []string) ([]tools.Diagnostic, error) {
	resp, err := e.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_Diagnostics{Diagnostics: &hostv1.DiagnosticsRequest{Paths: paths}}})
	if err != nil {
		return nil, err
	}
	var out []tools.Diagnostic
	for _, d := range resp.GetDiagnostics().GetDiagnostics() {
		out = append(out, tools.Diagnostic{Path: d.GetPath(), Line: int(d.GetLine()), Severity: severities.Get()[d.GetSeverity()],
			Message: d.GetMessage(), Source: d.GetSource()})
	}
	return out, nil
}

func (e editor) OpenFile(ctx context.Context, abs string, line int) error {
	_, err := e.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_OpenFile{OpenFile: &hostv1.OpenFileRequest{Path: abs, Line: int32(line)}}})
	return err
}

var levels = lazy.Value[map[string]hostv1.MessageLevel]{New: func() map[string]hostv1.MessageLevel {
	return map[string]hostv1.MessageLevel{"info": hostv1.MessageLevel_MESSAGE_LEVEL_INFO,
		"warning": hostv1.MessageLevel_MESSAGE_LEVEL_WARNING, "error": hostv1.MessageLevel_MESSAGE_LEVEL_ERROR}
}}

func (e editor) ShowMessage(ctx context.Context, level, text string) error {
	_, err := e.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_ShowMessage{ShowMessage: &hostv1.ShowMessageRequest{
		Level: levels.Get()[level], Text: text}}})
	return err
}

// ReadText implements tools.Buffers: the file's text as the editor holds it, when its hello
// offered read_file; otherwise not served.
func (h *Host) ReadText(ctx context.Context, abs string) (string, bool, error) {
	if !offersFiles(h) {
		return "", false, nil
	}
	resp, err := h.call(ctx, &hostv1.Request{Request: &hostv1.Request_ReadFile{ReadFile: &hostv1.ReadFileRequest{Path: abs}}})
	if err != nil {
		return "", true, err
	}
	return resp.GetReadFile().GetText(), true, nil
}
