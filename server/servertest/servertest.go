// Package servertest runs the real daemon in-process over a temporary Unix socket, with the
// scripted fake model and a fake editor host speaking the real bridge stream, for integration
// tests of whole tasks (docs/conventions.md, "End-to-end RPC tests").
package servertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/lsp"
	"github.com/cairnhq/cairn/core/policy"
)

// Env is a running daemon with its clients.
type Env struct {
	T         testing.TB
	Daemon    *server.Daemon
	LLM       *llmtest.Server
	DataDir   string
	Workspace string
	Conn      *grpc.ClientConn
	Tasks     cairnv1.TaskServiceClient
	UI        cairnv1.UiServiceClient
	State     cairnv1.StateServiceClient
	Files     cairnv1.WorkspaceServiceClient
	Bridge    cairnv1.HostBridgeServiceClient
	MCP       cairnv1.McpServiceClient
	Token     string

	closeConn sync.Once // Conn is closed once, by CloseConn
}

// Options tune the daemon.
type Options struct {
	// Settings edits the default settings (the model URL is filled in).
	Settings func(*config.Settings)
	// DataDir reuses a data dir (daemon restart tests).
	DataDir string
	// Workspace reuses a workspace folder.
	Workspace string
	// WindowGrace is how long a closed window's tasks wait for it (0: the daemon's default).
	WindowGrace time.Duration
	// Policy says where the policy files are (nil: none, whatever this machine has: tests do
	// not read /etc/cairn or the user's config folder).
	Policy *policy.Sources
	// Egress is where the daemon's outbound connections go (nil: the test process's
	// environment, as a daemon reads it).
	Egress *egress.Config
}

// Start runs a daemon playing script.
func Start(t testing.TB, script llmtest.Script, opts Options) *Env {
	t.Helper()
	llm := llmtest.New(t, script)
	return StartWith(t, llm, opts)
}

// StartWith runs a daemon against an existing fake model.
func StartWith(t testing.TB, llm *llmtest.Server, opts Options) *Env {
	t.Helper()
	dataDir := opts.DataDir
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	ws := opts.Workspace
	if ws == "" {
		ws = t.TempDir()
	}
	ws, _ = filepath.EvalSymlinks(ws)
	s := config.Default()
	// The harness's tasks run without the daemon's language servers (README, "Language
	// servers"): gopls would start at the first edit of a .go file and every such test would
	// wait for its load. A test that wants them sets languageServers in Options.Settings.
	s.LanguageServers = map[string][]string{}
	for _, l := range lsp.Languages.Get() {
		s.LanguageServers[l.Name] = []string{}
	}
	s.API.BaseURL, s.API.APIKey, s.API.Model = llm.URL(), "test-key", "fake-model"
	if opts.Settings != nil {
		opts.Settings(&s)
	}
	// Sockets have a short path limit: keep it out of deep temp dirs.
	sockDir, err := os.MkdirTemp("", "cairn-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(sockDir); err != nil {
			t.Error(err)
		}
	})
	pol := opts.Policy
	if pol == nil {
		pol = &policy.Sources{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	d, err := server.Start(ctx, server.Config{DataDir: dataDir, Socket: filepath.Join(sockDir, "d.sock"),
		TokenFile: filepath.Join(sockDir, "token"), Version: "test", Settings: &s, WindowGrace: opts.WindowGrace,
		Policy: pol, Egress: opts.Egress})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	hs := d.Handshake()
	tok, err := os.ReadFile(hs.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tok))
	conn, err := Dial(hs.Address, token)
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, Daemon: d, LLM: llm, DataDir: dataDir, Workspace: ws, Conn: conn, Token: token,
		Tasks: cairnv1.NewTaskServiceClient(conn), UI: cairnv1.NewUiServiceClient(conn),
		State: cairnv1.NewStateServiceClient(conn), Files: cairnv1.NewWorkspaceServiceClient(conn),
		Bridge: cairnv1.NewHostBridgeServiceClient(conn), MCP: cairnv1.NewMcpServiceClient(conn)}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			e.CloseConn()
			d.Stop()
			cancel()
		})
	}
	t.Cleanup(stop)
	return e
}

// Stop stops the daemon now (restart tests start another on the same data dir).
func (e *Env) Stop() {
	e.CloseConn()
	e.Daemon.Stop()
}

// CloseConn closes the client connection; calls after the first do nothing (the test's
// cleanup closes it too). A failure fails the test.
func (e *Env) CloseConn() {
	e.closeConn.Do(func() {
		if err := e.Conn.Close(); err != nil {
			e.T.Errorf("closing the client connection: %v", err)
		}
	})
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearer) RequireTransportSecurity() bool { return false }

// Dial connects to a daemon address with a token ("" for none).
func Dial(address, token string) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearer(token)))
	}
	return grpc.NewClient(address, opts...)
}

// NewTask starts a task in the workspace, optionally served by a host.
func (e *Env) NewTask(text string, hostID string, mode cairnv1.Mode) string {
	e.T.Helper()
	resp, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: text, WorkspaceRoots: []string{e.Workspace},
		HostId: hostID, Mode: mode})
	if err != nil {
		e.T.Fatalf("NewTask: %v", err)
	}
	return resp.GetTaskId()
}

// Answer answers the open ask.
func (e *Env) Answer(taskID string, r cairnv1.AskResponse, text string) {
	e.T.Helper()
	if _, err := e.Tasks.AnswerAsk(context.Background(), &cairnv1.AnswerAskRequest{TaskId: taskID, Response: r, Text: text}); err != nil {
		e.T.Fatalf("AnswerAsk: %v", err)
	}
}

// Timeout bounds every wait in these tests; it only matters when a test is failing.
const Timeout = 20 * time.Second
