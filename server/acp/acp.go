// Package acp serves Cairn as an Agent Client Protocol (version 1) agent: an editor such as Zed,
// a JetBrains IDE or Neovim speaks JSON-RPC to `cairn acp` on its stdin and stdout, and every
// session is a task of the daemon, driven through the same gRPC services `cairn run` uses (README
// "Use Cairn in Zed, JetBrains, Neovim"). There is no second agent loop here: this package only
// maps the protocol's requests onto NewTask, AnswerAsk, SendMessage, CancelTask, SetMode and
// UpdateTaskSettings, and the task's subscription onto session/update notifications.
package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Clients are the daemon's services a session drives.
type Clients struct {
	Tasks cairnv1.TaskServiceClient
	UI    cairnv1.UiServiceClient
	State cairnv1.StateServiceClient
	// Files lists the slash commands and workflows a session offers; nil offers none.
	Files cairnv1.WorkspaceServiceClient
	// Bridge connects a session's host when the client offers files or a terminal; nil keeps
	// every session on the daemon's own disk and runner.
	Bridge cairnv1.HostBridgeServiceClient
}

// Options configure the agent.
type Options struct {
	Clients
	// Log receives diagnostics; never stdout, which carries only protocol messages.
	Log *slog.Logger
	// Images tells the client whether prompts may carry images (the model reads them).
	Images bool
	// Overrides are the settings of every task a session starts (the flags of `cairn acp`).
	// Nil starts tasks with empty overrides: each task still has settings of its own, so what a
	// session chooses (mode, "always" answers) changes that task and never the shared settings.
	Overrides *cairnv1.TaskOverrides
	// Version is shown to the client as the agent's version.
	Version string
	// MissingKey, when set, says which setting to set: no model endpoint is configured, so
	// there is no daemon (Clients are unused). The agent then offers one auth method whose
	// authentication fails with this text, and refuses sessions until the user sets it.
	MissingKey string
}

// Agent is the protocol's agent side: one per connection, holding its sessions.
type Agent struct {
	o    Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection
	// ready is closed once conn is set: the connection's reader may call the handlers before
	// NewAgentSideConnection returns.
	ready chan struct{}
	// ctx lives as long as the connection; the sessions' subscriptions run under it. A
	// handler's context ends with its request and the subscriptions outlive it, so the agent
	// keeps the connection's (an exception to docs/conventions.md, "Contexts").
	ctx context.Context //nolint:containedctx // the connection's lifetime; see above

	mu       sync.Mutex
	sessions map[sdk.SessionId]*session
	// caps and ide are what the client said in initialize.
	caps sdk.ClientCapabilities
	ide  string
}

var (
	_ sdk.Agent       = (*Agent)(nil)
	_ sdk.AgentLoader = (*Agent)(nil)
)

// Serve answers the client on in/out until it disconnects or ctx ends; it then cancels the
// running tasks of its sessions and returns.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &Agent{o: o, log: o.Log, ctx: ctx, ready: make(chan struct{}), sessions: map[sdk.SessionId]*session{}}
	// The connection logs to slog's default logger (the command line routes it: README "Using
	// it from the command line"); SetLogger is not called, as it would race with the reader the
	// connection has already started.
	a.conn = sdk.NewAgentSideConnection(a, out, in)
	close(a.ready)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return nil
}

// closeAll cancels what the sessions still run: the editor that started them is gone.
func (a *Agent) closeAll() {
	a.mu.Lock()
	ss := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		ss = append(ss, s)
	}
	a.mu.Unlock()
	for _, s := range ss {
		s.stop()
	}
}

// connection is the client connection, once it is set.
func (a *Agent) connection() *sdk.AgentSideConnection {
	<-a.ready
	return a.conn
}

func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil, sdk.NewInvalidParams(map[string]any{"sessionId": "unknown session " + string(id)})
	}
	return s, nil
}

// Initialize answers with protocol version 1 and what this agent accepts.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.log.Info("acp: initialize", "clientVersion", p.ProtocolVersion, "fs", p.ClientCapabilities.Fs, "terminal", p.ClientCapabilities.Terminal)
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	if p.ClientInfo != nil {
		a.ide = p.ClientInfo.Name
	}
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: a.o.Images, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "cairn", Title: sdk.Ptr("Cairn"), Version: a.o.Version},
		AuthMethods: a.authMethods(),
	}, nil
}

// authMethods is none when a model endpoint is configured (the key comes from Cairn's settings
// and environment), otherwise one that tells what to set.
func (a *Agent) authMethods() []sdk.AuthMethod {
	if a.o.MissingKey == "" {
		return []sdk.AuthMethod{}
	}
	return []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: "cairn-settings", Name: "Configure a model for Cairn",
		Description: sdk.Ptr(a.o.MissingKey)}}}
}

// Authenticate cannot sign in: the key is a setting. Without one it fails with what to set.
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	if a.o.MissingKey != "" {
		return sdk.AuthenticateResponse{}, sdk.NewAuthRequired(map[string]any{"error": a.o.MissingKey})
	}
	return sdk.AuthenticateResponse{}, nil
}

// unconfigured refuses a session while no model endpoint is configured.
func (a *Agent) unconfigured() error {
	if a.o.MissingKey == "" {
		return nil
	}
	return sdk.NewAuthRequired(map[string]any{"error": a.o.MissingKey})
}

// NewSession opens a session on cwd and the additional directories (the workspace roots). The
// task starts with the first prompt.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := a.unconfigured(); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if !filepath.IsAbs(p.Cwd) {
		return sdk.NewSessionResponse{}, sdk.NewInvalidParams(map[string]any{"cwd": "must be an absolute path"})
	}
	roots := []string{filepath.Clean(p.Cwd)}
	for _, d := range p.AdditionalDirectories {
		if !filepath.IsAbs(d) {
			return sdk.NewSessionResponse{}, sdk.NewInvalidParams(map[string]any{"additionalDirectories": "must be absolute paths"})
		}
		roots = append(roots, filepath.Clean(d))
	}
	mcpJSON, err := mcpServersJSON(p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s := newSession(a, sdk.SessionId("cairn-"+hex.EncodeToString(b[:])), roots)
	s.mcpJSON = mcpJSON
	s.model = a.startModel(ctx)
	s.modelList = a.models(ctx, s.model)
	if err := s.connectHost(ctx); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return sdk.NewSessionResponse{SessionId: s.id, Modes: a.modeState(ctx, roots, modeAct), ConfigOptions: s.configOptions()}, nil
}

// Prompt runs one turn of the session's task: it ends when the task waits for the user.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	in, err := promptInput(p.Prompt, a.o.Images)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	reason, err := s.prompt(ctx, in)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return sdk.PromptResponse{StopReason: reason}, nil
}

// Cancel cancels the session's running turn: the SDK ends the prompt's own context, and the
// prompt cancels the task and answers once the turn's updates are out. Without a running
// prompt the task is cancelled here. Nothing here waits: the SDK hands over the responses the
// client sends after a notification only once its handler returned, and ending the turn
// waits for some (the client terminal's exit).
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.mu.Lock()
	prompting := s.waiter != nil
	s.mu.Unlock()
	if !prompting {
		go s.cancelTask()
	}
	return nil
}

// SetSessionMode switches the session's mode: ACT, PLAN or one of the workspace's modes
// (docs/modes.md).
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if !a.hasMode(ctx, s.roots, string(p.ModeId)) {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"modeId": "one of the session's availableModes"})
	}
	if err := s.setMode(ctx, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

// CloseSession cancels the session's task and forgets the session.
func (a *Agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.stop()
	a.mu.Lock()
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions lists the sessions of this connection.
func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, s := range a.sessions {
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: s.id, Cwd: s.roots[0]})
	}
	return out, nil
}

// ResumeSession is not offered (no sessionCapabilities.resume).
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// The built-in modes' ids.
const (
	modeAct  = "act"
	modePlan = "plan"
)

// builtinModes are ACT and PLAN as a client shows them; the daemon's ListModes adds the
// orchestrator and the workspace's modes.
func builtinModes() []sdk.SessionMode {
	return []sdk.SessionMode{
		{Id: modeAct, Name: "Act", Description: sdk.Ptr("Cairn reads, edits and runs commands, asking as your approval settings say")},
		{Id: modePlan, Name: "Plan", Description: sdk.Ptr("Cairn reads and plans with you; it changes nothing")},
	}
}

// modes lists the session's modes: ACT, PLAN and the others the daemon finds for roots. When
// the daemon cannot list them, ACT and PLAN are still offered.
func (a *Agent) modes(ctx context.Context, roots []string) []sdk.SessionMode {
	out := builtinModes()
	if a.o.Files == nil {
		return out
	}
	resp, err := a.o.Files.ListModes(ctx, &cairnv1.ListModesRequest{WorkspaceRoots: roots})
	if err != nil {
		return out
	}
	for _, m := range resp.GetModes() {
		if m.GetSlug() == modeAct || m.GetSlug() == modePlan {
			continue
		}
		mode := sdk.SessionMode{Id: sdk.SessionModeId(m.GetSlug()), Name: m.GetName()}
		if d := m.GetDescription(); d != "" {
			mode.Description = sdk.Ptr(d)
		}
		out = append(out, mode)
	}
	return out
}

// modeState is the modes a session offers, current the one it is in.
func (a *Agent) modeState(ctx context.Context, roots []string, current string) *sdk.SessionModeState {
	return &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(current), AvailableModes: a.modes(ctx, roots)}
}

// hasMode reports whether the session offers the mode.
func (a *Agent) hasMode(ctx context.Context, roots []string, id string) bool {
	for _, m := range a.modes(ctx, roots) {
		if string(m.Id) == id {
			return true
		}
	}
	return false
}

// taskMode is the mode a task's state names.
func taskMode(st *cairnv1.TaskState) string {
	if slug := st.GetModeSlug(); slug != "" {
		return slug
	}
	if st.GetMode() == cairnv1.Mode_MODE_PLAN {
		return modePlan
	}
	return modeAct
}

// input is a prompt turned into a task's text and attachments.
type input struct {
	text   string
	images []string
	files  []string
}

// promptInput turns the prompt's blocks into text, image data URLs and attached files: a
// resource link to a local file is attached as a file, an embedded text resource goes into
// the text with its address (the editor already read it, unsaved changes included).
func promptInput(blocks []sdk.ContentBlock, images bool) (input, error) {
	var in input
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			if !images {
				return input{}, sdk.NewInvalidParams(map[string]any{"prompt": "the model does not read images"})
			}
			in.images = append(in.images, "data:"+b.Image.MimeType+";base64,"+b.Image.Data)
		case b.ResourceLink != nil:
			if p, ok := filePath(b.ResourceLink.Uri); ok {
				in.files = append(in.files, p)
			} else {
				parts = append(parts, b.ResourceLink.Uri)
			}
		case b.Resource != nil:
			if t := b.Resource.Resource.TextResourceContents; t != nil {
				name := t.Uri
				if p, ok := filePath(t.Uri); ok {
					name = p
				}
				parts = append(parts, fmt.Sprintf("<file_content path=%q>\n%s\n</file_content>", name, t.Text))
			}
		}
	}
	in.text = strings.TrimSpace(strings.Join(parts, "\n\n"))
	if in.text == "" && len(in.images) == 0 && len(in.files) == 0 {
		return input{}, sdk.NewInvalidParams(map[string]any{"prompt": "empty"})
	}
	return in, nil
}

// filePath is the local path of a file:// URI.
func filePath(uri string) (string, bool) {
	p, ok := strings.CutPrefix(uri, "file://")
	if !ok || !strings.HasPrefix(p, "/") {
		return "", false
	}
	return filepath.FromSlash(p), true
}

// rpcError turns a daemon error into one the client shows.
func rpcError(what string, err error) error {
	if s, ok := status.FromError(err); ok {
		return sdk.NewInternalError(map[string]any{"error": what + ": " + s.Message()})
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return sdk.NewInternalError(map[string]any{"error": what + ": " + err.Error()})
}
