// Package hostbridge adapts HostBridgeService.Connect streams to core's host interfaces: each
// connected editor (or CLI, or test fake) becomes a tools.Host whose diff views, terminals and
// editor queries are requests on its stream, answered by id.
package hostbridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

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
	// OnDiffDecision is called when a user presses Save/Reject in the editor.
	OnDiffDecision func(hostID, sessionID string, approved bool)

	// mu guards hosts.
	mu    sync.Mutex
	hosts map[string]*Host
}

// NewRegistry returns an empty registry.
func NewRegistry(version string) *Registry {
	return &Registry{version: version, hosts: map[string]*Host{}}
}

// Get returns a connected host.
func (r *Registry) Get(id string) (*Host, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.hosts[id]
	return h, ok
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
		id: newID(), hello: hello, stream: stream, r: r,
		pending:  map[string]chan *hostv1.Response{},
		commands: map[string]*remoteProcess{},
		done:     make(chan struct{}),
	}
	r.mu.Lock()
	r.hosts[h.id] = h
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.hosts, h.id)
		r.mu.Unlock()
		h.close()
	}()
	if err := h.send(&cairnv1.ConnectResponse{Message: &cairnv1.ConnectResponse_Welcome{
		Welcome: &hostv1.Welcome{HostId: h.id, DaemonVersion: r.version}}}); err != nil {
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

// Host is one connected editor.
type Host struct {
	id     string
	hello  *hostv1.Hello
	stream Stream
	r      *Registry

	// sendMu serialises Send on the stream.
	sendMu sync.Mutex

	// mu guards pending, commands and closed.
	mu       sync.Mutex
	pending  map[string]chan *hostv1.Response
	commands map[string]*remoteProcess
	closed   bool
	done     chan struct{}
}

// ID returns the host id given in Welcome.
func (h *Host) ID() string { return h.id }

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
		if h.r.OnDiffDecision != nil {
			h.r.OnDiffDecision(h.id, e.DiffDecision.GetSessionId(), e.DiffDecision.GetApproved())
		}
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
	s := &diffSession{h: d.h, id: newID()}
	_, err := d.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_OpenDiff{OpenDiff: &hostv1.OpenDiffRequest{
		SessionId: s.id, Path: abs, Original: original, IsNew: isNew}}})
	if err != nil {
		return nil, err
	}
	return s, nil
}

type diffSession struct {
	h  *Host
	id string
}

// ID returns the session id (DiffDecision events name it).
func (s *diffSession) ID() string { return s.id }

func (s *diffSession) Update(ctx context.Context, proposed string, final bool) error {
	_, err := s.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_UpdateDiff{UpdateDiff: &hostv1.UpdateDiffRequest{
		SessionId: s.id, Content: proposed, Final: final}}})
	return err
}

func (s *diffSession) Save(ctx context.Context) (string, error) {
	resp, err := s.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_SaveDiff{SaveDiff: &hostv1.SaveDiffRequest{SessionId: s.id}}})
	if err != nil {
		return "", err
	}
	return resp.GetSaveDiff().GetSavedContent(), nil
}

func (s *diffSession) Revert(ctx context.Context) error {
	_, err := s.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_RevertDiff{RevertDiff: &hostv1.RevertDiffRequest{SessionId: s.id}}})
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
	_, err := t.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_RunCommand{RunCommand: &hostv1.RunCommandRequest{
		CommandId: id, Command: req.Command, Cwd: req.Cwd}}})
	if err != nil {
		t.h.mu.Lock()
		delete(t.h.commands, id)
		t.h.mu.Unlock()
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Kill()
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

var severities = map[hostv1.Severity]string{
	hostv1.Severity_SEVERITY_ERROR: "error", hostv1.Severity_SEVERITY_WARNING: "warning",
	hostv1.Severity_SEVERITY_INFORMATION: "information", hostv1.Severity_SEVERITY_HINT: "hint",
}

func (e editor) Diagnostics(ctx context.Context, paths []string) ([]tools.Diagnostic, error) {
	resp, err := e.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_Diagnostics{Diagnostics: &hostv1.DiagnosticsRequest{Paths: paths}}})
	if err != nil {
		return nil, err
	}
	var out []tools.Diagnostic
	for _, d := range resp.GetDiagnostics().GetDiagnostics() {
		out = append(out, tools.Diagnostic{Path: d.GetPath(), Line: int(d.GetLine()), Severity: severities[d.GetSeverity()],
			Message: d.GetMessage(), Source: d.GetSource()})
	}
	return out, nil
}

func (e editor) OpenFile(ctx context.Context, abs string, line int) error {
	_, err := e.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_OpenFile{OpenFile: &hostv1.OpenFileRequest{Path: abs, Line: int32(line)}}})
	return err
}

var levels = map[string]hostv1.MessageLevel{"info": hostv1.MessageLevel_MESSAGE_LEVEL_INFO,
	"warning": hostv1.MessageLevel_MESSAGE_LEVEL_WARNING, "error": hostv1.MessageLevel_MESSAGE_LEVEL_ERROR}

func (e editor) ShowMessage(ctx context.Context, level, text string) error {
	_, err := e.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_ShowMessage{ShowMessage: &hostv1.ShowMessageRequest{
		Level: levels[level], Text: text}}})
	return err
}
