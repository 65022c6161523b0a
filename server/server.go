// Package server is the daemon's composition root: it builds core's task manager with its
// dependencies, listens on a private Unix socket (or loopback TCP when asked), checks a bearer
// token on every call, prints the handshake line, and stops gracefully.
package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/server/hostbridge"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/rpc"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// Config says where the daemon keeps its data and listens.
type Config struct {
	DataDir   string
	Socket    string // default DataDir/daemon.sock
	Listen    string // 127.0.0.1:PORT instead of a socket
	TokenFile string // default beside the socket
	Version   string
	// Settings, when set, replaces the settings file's (the CLI passes flags and environment).
	Settings *config.Settings
	Logger   *slog.Logger
}

// MCPSettingsFile is the MCP settings file in the data dir (spec §10).
const MCPSettingsFile = "mcp_settings.json"

// Handshake is the one JSON line printed when the daemon is ready.
type Handshake struct {
	Address   string `json:"address"`
	TokenFile string `json:"token_file"`
	PID       int    `json:"pid"`
	Version   string `json:"version"`
}

// Daemon is a running server.
type Daemon struct {
	cfg      Config
	grpc     *grpc.Server
	lis      net.Listener
	tasks    *task.Manager
	comp     *composer
	shake    Handshake
	sockPath string
}

// Start builds the daemon and starts serving. Stop it with Stop (or by cancelling ctx).
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("server: a data dir is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	lis, addr, sockPath, err := listen(cfg)
	if err != nil {
		return nil, err
	}
	tokenFile := cfg.TokenFile
	if tokenFile == "" {
		dir := cfg.DataDir
		if sockPath != "" {
			dir = filepath.Dir(sockPath)
		}
		tokenFile = filepath.Join(dir, "daemon.token")
	}
	token, err := loadOrCreateToken(tokenFile)
	if err != nil {
		lis.Close()
		return nil, err
	}

	var settings *config.Holder
	if cfg.Settings != nil {
		// Settings given by the CLI live in memory only: flags are not saved.
		settings, _ = config.NewHolder("")
		_ = settings.Set(*cfg.Settings)
	} else if settings, err = config.NewHolder(filepath.Join(cfg.DataDir, "settings.json")); err != nil {
		cfg.Logger.Warn("settings file unreadable; using defaults", "err", err)
	}
	st, err := store.Open(cfg.DataDir)
	if err != nil {
		lis.Close()
		return nil, err
	}
	hosts := hostbridge.NewRegistry(cfg.Version)
	// The one MCP hub of the daemon: Start reads mcp_settings.json and returns; servers
	// connect in the background, so neither the handshake nor a new task waits for them.
	hub := mcp.New(mcp.Options{SettingsPath: filepath.Join(cfg.DataDir, MCPSettingsFile), ClientVersion: cfg.Version,
		Logger: cfg.Logger.With("component", "mcp")})
	hub.Start()
	agentCfg := agent.DefaultConfig(cfg.DataDir, cfg.Logger)
	agentCfg.MCP = hub
	comp := &composer{settings: settings, hosts: hosts, agent: agentCfg, mcp: hub,
		logger: cfg.Logger, indexes: map[string]*workspace.Index{}}
	tasks := task.NewManager(st, agent.New(comp, comp.agent).Deps)
	hosts.OnDiffDecision = func(owner *hostbridge.Ref, approved bool) {
		// Save/Reject pressed in the editor answers the edit approval of the one task that
		// opened that diff, and only while that approval is its open ask.
		for _, t := range tasks.Tasks() {
			if t.Host() != tools.Host(owner) {
				continue
			}
			if err := t.AnswerKind(msg.AskTool, tools.Answer{Approved: approved}); err != nil {
				cfg.Logger.Debug("editor decision not applied", "task", t.ID(), "err", err)
			}
		}
	}
	svc := rpc.New(&rpc.Backend{
		Tasks: tasks, Settings: settings, Hosts: hosts, Version: cfg.Version, DataDir: cfg.DataDir,
		Index: comp.index,
		Models: func(ctx context.Context, baseURL, apiKey string) ([]string, error) {
			return openai.New(openai.Config{BaseURL: baseURL, APIKey: apiKey}).Models(ctx)
		},
		GlobalRulesDir:         comp.agent.GlobalRulesDir,
		GlobalWorkflowsDir:     comp.agent.GlobalWorkflowsDir,
		CheckpointDiff:         comp.checkpointDiff,
		CheckpointRestoreFiles: comp.checkpointRestoreFiles,
		MCP:                    hub,
	})
	auth := authenticator{token: []byte(token)}
	g := grpc.NewServer(grpc.ChainUnaryInterceptor(auth.unary, recoverUnary(cfg.Logger)),
		grpc.ChainStreamInterceptor(auth.stream, recoverStream(cfg.Logger)),
		grpc.MaxRecvMsgSize(rpc.MaxMessageBytes), grpc.MaxSendMsgSize(rpc.MaxMessageBytes))
	cairnv1.RegisterTaskServiceServer(g, svc)
	cairnv1.RegisterUiServiceServer(g, svc)
	cairnv1.RegisterStateServiceServer(g, svc)
	cairnv1.RegisterWorkspaceServiceServer(g, svc)
	cairnv1.RegisterHostBridgeServiceServer(g, svc)
	cairnv1.RegisterCheckpointServiceServer(g, svc)
	cairnv1.RegisterMcpServiceServer(g, svc)

	d := &Daemon{cfg: cfg, grpc: g, lis: lis, tasks: tasks, comp: comp, sockPath: sockPath,
		shake: Handshake{Address: addr, TokenFile: tokenFile, PID: os.Getpid(), Version: cfg.Version}}
	go func() {
		if err := g.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			cfg.Logger.Error("serve", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		d.Stop()
	}()
	return d, nil
}

// Handshake returns what the daemon prints when ready.
func (d *Daemon) Handshake() Handshake { return d.shake }

// Tasks returns the task manager (tests inspect it).
func (d *Daemon) Tasks() *task.Manager { return d.tasks }

// PrintHandshake writes the handshake as one JSON line.
func (d *Daemon) PrintHandshake(w io.Writer) error {
	b, err := json.Marshal(d.shake)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Stop stops accepting calls, ends streams, stops every task and removes the socket.
func (d *Daemon) Stop() {
	// Tasks stop first (their streams end with them); a stuck one does not hold the daemon.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d.tasks.CloseAll(ctx)
	done := make(chan struct{})
	go func() {
		d.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		d.grpc.Stop()
	}
	d.comp.closeIndexes()
	mctx, mcancel := context.WithTimeout(context.Background(), 8*time.Second)
	if err := d.comp.mcp.Close(mctx); err != nil {
		d.cfg.Logger.Warn("stopping MCP servers", "err", err)
	}
	mcancel()
	if d.sockPath != "" {
		_ = os.Remove(d.sockPath)
	}
}

// listen opens the socket (0600) or a loopback TCP port; anything else is refused.
func listen(cfg Config) (net.Listener, string, string, error) {
	if cfg.Listen != "" {
		host, _, err := net.SplitHostPort(cfg.Listen)
		if err != nil {
			return nil, "", "", fmt.Errorf("server: --listen %q: %w", cfg.Listen, err)
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, "", "", fmt.Errorf("server: --listen must be a loopback address (127.0.0.1:PORT), not %q", cfg.Listen)
		}
		if host == "localhost" {
			cfg.Listen = net.JoinHostPort("127.0.0.1", cfg.Listen[strings.LastIndex(cfg.Listen, ":")+1:])
		}
		lis, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			return nil, "", "", fmt.Errorf("server: %w", err)
		}
		return lis, lis.Addr().String(), "", nil
	}
	sock := cfg.Socket
	if sock == "" {
		sock = filepath.Join(cfg.DataDir, "daemon.sock")
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return nil, "", "", fmt.Errorf("server: %w", err)
	}
	// A socket left by a crashed daemon is removed; a live one is not stolen.
	if c, err := net.DialTimeout("unix", sock, 200*time.Millisecond); err == nil {
		c.Close()
		return nil, "", "", fmt.Errorf("server: another daemon is listening on %s", sock)
	}
	_ = os.Remove(sock)
	old := umask(0o177)
	lis, err := net.Listen("unix", sock)
	umask(old)
	if err != nil {
		return nil, "", "", fmt.Errorf("server: %w", err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		lis.Close()
		return nil, "", "", fmt.Errorf("server: %w", err)
	}
	return lis, "unix://" + sock, sock, nil
}

// loadOrCreateToken reads the spawner's token, or creates one (0600).
func loadOrCreateToken(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 16 {
		return strings.TrimSpace(string(b)), nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("server: token: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	return tok, os.Chmod(path, 0o600)
}

// authenticator checks `authorization: Bearer <token>` on every call.
type authenticator struct{ token []byte }

func (a authenticator) check(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if tok, ok := strings.CutPrefix(v, "Bearer "); ok && subtle.ConstantTimeCompare([]byte(tok), a.token) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "missing or wrong bearer token")
}

func (a authenticator) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := a.check(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (a authenticator) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := a.check(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

// recoverUnary reports a handler panic as Internal and keeps the daemon serving (house rule 8).
func recoverUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("bug: handler panic", "method", info.FullMethod, "panic", r)
				err = status.Errorf(codes.Internal, "internal error in %s", info.FullMethod)
			}
		}()
		return h(ctx, req)
	}
}

func recoverStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("bug: stream panic", "method", info.FullMethod, "panic", r)
				err = status.Errorf(codes.Internal, "internal error in %s", info.FullMethod)
			}
		}()
		return h(srv, ss)
	}
}
