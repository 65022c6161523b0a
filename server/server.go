// Package server is the daemon's composition root: it builds core's task manager with its
// dependencies, listens on a private Unix socket (or loopback TCP when asked), checks a bearer
// token on every call, prints the handshake line (and, for a shared daemon, writes it to a
// handshake file other clients find it by), ends itself when idle or upgraded, and stops
// gracefully.
package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/server/hostbridge"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/otel"
	"github.com/cairnhq/cairn/server/rpc"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/watch"
	"github.com/cairnhq/cairn/core/workspace"
	"github.com/cairnhq/cairn/core/worktree"
)

// Config says where the daemon keeps its data and listens.
type Config struct {
	DataDir   string
	Socket    string // default DataDir/daemon.sock
	Listen    string // 127.0.0.1:PORT instead of a socket
	TokenFile string // default beside the socket; a fresh token is written at every start
	Version   string
	// HandshakeFile, when set, receives the handshake (0600, atomically) before Start returns
	// (a client that finds it a moment before the server serves waits in the socket's backlog)
	// and is taken away when the daemon stops: a daemon shared by several clients sets it.
	HandshakeFile string
	// IdleExit, when positive, stops the daemon that long after its last client left.
	IdleExit time.Duration
	// Executable, when set, is watched (inotify on Linux, else a stat every ExecutablePoll,
	// default 250 ms): once it is replaced or removed the daemon stops.
	Executable     string
	ExecutablePoll time.Duration
	// WindowGrace is how long a window's tasks wait for its editor to reconnect before they are
	// cancelled (default 15 s): a closed window does not leave its tasks running unseen.
	WindowGrace time.Duration
	// Settings, when set, replaces the settings file's (the CLI passes flags and environment);
	// such a daemon also keeps the hook trust it is given in memory (the data dir's is read).
	Settings *config.Settings
	Logger   *slog.Logger
	// Policy says where the policy files are (nil: DefaultPolicySources, this machine's).
	Policy *policy.Sources
	// Egress is where outbound connections go and whom they trust (nil: the environment's
	// HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE, …; core/egress).
	Egress *egress.Config
}

// MCPSettingsFile is the MCP settings file in the data dir (docs/architecture.md, "MCP").
const MCPSettingsFile = "mcp_settings.json"

// HooksFile records, in the data dir, the hooks the user enabled and trusted.
const HooksFile = "hooks.json"

// CommandsDir is the data dir's folder of records of the commands run outside the command
// sandbox, one folder per daemon (core/host/direct's Ledger).
const CommandsDir = "commands"

// WorktreesDir is the data dir's folder of the tasks' git worktrees and their records
// (core/worktree).
const WorktreesDir = "worktrees"

// Handshake is the one JSON line printed when the daemon is ready.
type Handshake struct {
	Address   string `json:"address"`
	TokenFile string `json:"token_file"`
	PID       int    `json:"pid"`
	Version   string `json:"version"`
	// Executable is the daemon's binary when it watches it for upgrades: a client bundling
	// another (newer) binary can tell that this daemon is not its own.
	Executable string `json:"executable,omitempty"`
}

// Daemon is a running server.
type Daemon struct {
	cfg   Config
	grpc  *grpc.Server
	lis   net.Listener
	tasks *task.Manager
	comp  *composer
	shake Handshake
	// shakeLine is shake as the one JSON line printed and written to the handshake file.
	shakeLine []byte
	sockPath  string
	sockInfo  os.FileInfo // the socket file this daemon bound
	// shakeInfo is the handshake file this daemon wrote; set once before serving clients.
	shakeInfo os.FileInfo
	life      *lifetime
	// exe is the watch of the daemon's executable (nil: none), set by a goroutine that
	// exeSetup counts; upgraded closes (once, by upgrade) when it saw the executable replaced.
	exe         *exeWatch
	exeSetup    sync.WaitGroup
	upgraded    chan struct{}
	upgradeOnce sync.Once
	// otelStop flushes and stops the OpenTelemetry exporters (a no-op without them).
	otelStop func(context.Context) error

	stopOnce sync.Once
	done     chan struct{}
}

// Start builds the daemon and starts serving. Stop it with Stop (or by cancelling ctx).
//
// The daemon's parts are built on a goroutine started first thing, while this one makes the
// data dir, listens and writes the token and handshake files, none of which the parts need: a
// new goroutine waits a tenth of a millisecond or more for a thread, so one started any later
// would hold the handshake up (docs/performance.md, "P5 — the daemon at rest"). Building them
// reads files and changes nothing; what the parts do to the world (stopping the commands a
// killed daemon left, starting MCP servers) waits until the socket is this daemon's.
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("server: a data dir is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	d := &Daemon{cfg: cfg, upgraded: make(chan struct{}), done: make(chan struct{})}
	if cfg.IdleExit > 0 {
		d.life = newLifetime(cfg.IdleExit, func() {
			// Said so, with how to keep it: the warm search indexes end with the daemon
			// (docs/cli.md, "Keeping a daemon warm").
			cfg.Logger.Warn("no client for the idle grace; exiting, and the warm search indexes with it "+
				"(cairn serve --idle-exit 0 keeps the daemon)", "grace", cfg.IdleExit)
			d.Stop()
		})
	}
	built := make(chan error, 1)
	go func() { built <- d.build(ctx, token) }()
	// discard waits for the parts and closes them, for a start that fails.
	discard := func(err error) (*Daemon, error) {
		berr := <-built
		if berr == nil {
			d.grpc.Stop()
			d.closeParts()
		}
		return nil, errors.Join(err, berr)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return discard(fmt.Errorf("server: %w", err))
	}
	lis, addr, sockPath, err := listen(cfg)
	if err != nil {
		return discard(err)
	}
	d.lis, d.sockPath = lis, sockPath
	if sockPath != "" {
		if d.sockInfo, err = ownSocket(sockPath); err != nil {
			return discard(errors.Join(err, lis.Close()))
		}
	}
	tokenFile := cfg.TokenFile
	if tokenFile == "" {
		dir := cfg.DataDir
		if sockPath != "" {
			dir = filepath.Dir(sockPath)
		}
		tokenFile = filepath.Join(dir, "daemon.token")
	}
	// closeListener undoes the listening of a start that fails, the socket's file included.
	closeListener := func() error {
		err := lis.Close()
		if sockPath != "" {
			err = errors.Join(err, removeOwnSocket(sockPath, d.sockInfo))
		}
		return err
	}
	d.shake = Handshake{Address: addr, TokenFile: tokenFile, PID: os.Getpid(), Version: cfg.Version,
		Executable: cfg.Executable}
	if !utf8.ValidString(d.shake.Executable) {
		// Only what tells a client whether this daemon is its own binary: without it a client
		// keeps this daemon rather than replacing it.
		cfg.Logger.Warn("the daemon's executable path is not UTF-8; the handshake leaves it out", "path", d.shake.Executable)
		d.shake.Executable = ""
	}
	if d.shakeLine, err = d.shake.line(); err != nil {
		return discard(errors.Join(err, closeListener()))
	}
	// The token file first: a client that reads the handshake file reads the token it names.
	if err := writeToken(tokenFile, token); err != nil {
		return discard(errors.Join(err, closeListener()))
	}
	if cfg.HandshakeFile != "" {
		fi, left, err := writeHandshakeFile(cfg.HandshakeFile, d.shakeLine)
		if left != nil {
			cfg.Logger.Warn("a file is left beside the handshake file", "err", left)
		}
		if err != nil {
			return discard(errors.Join(err, closeListener()))
		}
		// Set before anything can fail, so Stop takes away the handshake file written.
		d.shakeInfo = fi
	}
	if err := <-built; err != nil {
		if d.shakeInfo != nil {
			err = errors.Join(err, removeHandshakeFile(cfg.HandshakeFile, d.shakeInfo, d.shake))
		}
		return nil, errors.Join(err, closeListener())
	}
	// The socket is this daemon's. What a daemon killed outright left running on this data dir
	// is stopped before any client connects (README, "Commands that keep running"); this
	// daemon's own commands are recorded in turn.
	if n, err := d.comp.agent.Ledger.Reap(); err != nil || n > 0 {
		cfg.Logger.Info("stopped commands a killed daemon left running", "stopped", n, "err", err)
	}
	// MCP servers connect in the background, so the handshake never waits for them (a task's
	// first request does, docs/architecture.md "MCP").
	d.comp.mcp.Start()
	go func() {
		if err := d.grpc.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			cfg.Logger.Error("serve", "err", err)
		}
	}()
	if err := d.startLifetime(); err != nil {
		d.Stop()
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			d.Stop()
		case <-d.upgraded:
			d.cfg.Logger.Info("the daemon's executable was replaced or removed; exiting", "path", d.cfg.Executable)
			d.Stop()
		case <-d.done:
		}
	}()
	return d, nil
}

// build builds the daemon's parts: its settings, store, MCP hub, agent, tasks and gRPC server.
// It reads files and changes none, so it runs before the socket is this daemon's; on an
// error, nothing built needs closing.
func (d *Daemon) build(ctx context.Context, token string) error {
	cfg := d.cfg
	var settings *config.Holder
	var err error
	if cfg.Settings != nil {
		// Settings given by the CLI live in memory only: flags are not saved.
		settings, _ = config.NewHolder("")
		_ = settings.Set(*cfg.Settings)
	} else if settings, err = config.NewHolder(filepath.Join(cfg.DataDir, "settings.json")); err != nil {
		cfg.Logger.Warn("settings file unreadable; using defaults", "err", err)
	}
	st, err := store.Open(cfg.DataDir)
	if err != nil {
		return err
	}
	// A daemon refused a task this one holds names this handshake (README, "One owner per task").
	st.SetHandshake(cfg.HandshakeFile)
	hosts := hostbridge.NewRegistry(cfg.Version)
	hosts.Logger = cfg.Logger.With("component", "hostbridge")
	// Every outbound connection goes through one transport: the proxy and the extra
	// certificate authorities (README "Networks of organisations").
	eg := egress.FromEnv(os.Getenv)
	if cfg.Egress != nil {
		eg = *cfg.Egress
	}
	tr, err := eg.Transport()
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: tr}
	mcpLog := cfg.Logger.With("component", "mcp")
	// The daemon's one file-system watcher (made before the MCP hub, which watches its
	// settings through it), shared by the file lists, every task's change tracking, the
	// language servers and the executable's watch; Stop closes it last, once they are closed.
	fsHub := watch.New()
	// The one MCP hub of the daemon; Start (once the socket is ours) reads mcp_settings.json.
	// Its stdio servers run in the command sandbox, each with a profile of its own
	// (docs/architecture.md "MCP").
	hub := mcp.New(mcp.Options{SettingsPath: filepath.Join(cfg.DataDir, MCPSettingsFile), ClientVersion: cfg.Version,
		Logger: mcpLog, Sandbox: agent.MCPSandbox(settings.Get, cfg.DataDir, mcpLog), HTTPClient: hc, Watch: fsHub})
	agentCfg := agent.DefaultConfig(cfg.DataDir, cfg.Logger)
	agentCfg.Ledger = direct.NewLedger(filepath.Join(cfg.DataDir, CommandsDir))
	agentCfg.MCP = hub
	agentCfg.HTTPClient, agentCfg.Egress = hc, eg
	// OpenTelemetry, only when the OTEL_* variables configure an exporter (README
	// "OpenTelemetry"); a configuration it cannot use is logged and exports nothing.
	rec, otelStop, err := otel.Setup(ctx, os.Getenv, cfg.Version, eg, cfg.Logger.With("component", "otel"))
	if err != nil {
		cfg.Logger.Warn("OpenTelemetry is configured but cannot start; nothing is exported", "err", err)
	}
	if rec != nil {
		agentCfg.Telemetry = rec
	}
	agentCfg.Policy = cfg.Policy
	if agentCfg.Policy == nil {
		src := DefaultPolicySources()
		agentCfg.Policy = &src
	}
	agentCfg.Version = cfg.Version
	agentCfg.Watch = fsHub
	// One file list per workspace root, kept current through the watcher and shared by the @
	// index, the search index and list_files (docs/architecture.md, "Watching files"); Stop
	// closes them after their users.
	agentCfg.FileLists = workspace.NewLists(agentCfg.Watch)
	// The daemon keeps a warm trigram index per workspace root for search_files; Stop closes them.
	agentCfg.SearchIndexes = search.NewIndexes(0, agentCfg.FileLists)
	// The daemon's language servers: the diagnostics of tasks without an editor that reports
	// problems (README, "Language servers"); Stop closes them after the tasks, before the
	// watcher they hear changes through.
	agentCfg.Languages = agent.LanguageServers(settings.Get, cfg.DataDir, agentCfg.Watch)
	// The hooks the user trusted, by content, per workspace. A trust file that does not parse
	// trusts nothing (and is replaced at the next trust).
	if agentCfg.Hooks, err = hooks.OpenStore(filepath.Join(cfg.DataDir, HooksFile)); err != nil {
		cfg.Logger.Warn("hooks trust file unreadable; no hook is trusted", "err", err)
	}
	if cfg.Settings != nil {
		// A daemon of one CLI run: what the run enables and trusts (--hooks) is for that run.
		agentCfg.Hooks.KeepInMemory()
	}
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
	hosts.OnGone = func(id string) { stopOrphans(tasks, hosts, id, cfg.WindowGrace, cfg.Logger) }
	svc := rpc.New(&rpc.Backend{
		Tasks: tasks, Settings: settings, Hosts: hosts, MCP: hub, Hooks: agentCfg.Hooks, Version: cfg.Version,
		Dirs: rpc.Dirs{Data: cfg.DataDir, GlobalRules: comp.agent.GlobalRulesDir, GlobalWorkflows: comp.agent.GlobalWorkflowsDir,
			GlobalSkills: comp.agent.GlobalSkillsDir, GlobalHooks: agentCfg.GlobalHooksDir, GlobalModes: comp.agent.GlobalModesDir},
		Worktrees:     worktree.New(filepath.Join(cfg.DataDir, WorktreesDir)),
		Env:           comp,
		SearchIndexes: agentCfg.SearchIndexes, IdleExit: cfg.IdleExit,
	})
	auth := authenticator{token: []byte(token), life: d.life}
	g := grpc.NewServer(grpc.ChainUnaryInterceptor(auth.unary, recoverUnary(cfg.Logger)),
		grpc.ChainStreamInterceptor(auth.stream, recoverStream(cfg.Logger)),
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes))
	cairnv1.RegisterTaskServiceServer(g, svc)
	cairnv1.RegisterUiServiceServer(g, svc)
	cairnv1.RegisterStateServiceServer(g, svc)
	cairnv1.RegisterWorkspaceServiceServer(g, svc)
	cairnv1.RegisterHostBridgeServiceServer(g, svc)
	cairnv1.RegisterCheckpointServiceServer(g, svc)
	cairnv1.RegisterMcpServiceServer(g, svc)
	d.tasks, d.comp, d.grpc, d.otelStop = tasks, comp, g, otelStop
	return nil
}

// closeParts closes the parts build made, once no task and no call uses them: the search
// indexes and file lists, the language servers, the MCP servers, the file watcher they all hear
// changes through, and last OpenTelemetry, which flushes what the tasks reported.
func (d *Daemon) closeParts() {
	d.comp.closeIndexes()
	d.comp.agent.SearchIndexes.Close()
	d.comp.agent.FileLists.Close()
	if err := d.comp.agent.Languages.Close(); err != nil {
		d.cfg.Logger.Warn("stopping the language servers", "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := d.comp.mcp.Close(ctx); err != nil {
		d.cfg.Logger.Warn("stopping MCP servers", "err", err)
	}
	if err := d.comp.agent.Watch.Close(); err != nil {
		d.cfg.Logger.Warn("closing the file watcher", "err", err)
	}
	if err := d.otelStop(ctx); err != nil {
		d.cfg.Logger.Warn("flushing OpenTelemetry", "err", err)
	}
}

// startLifetime starts the idle timer and the executable watch.
func (d *Daemon) startLifetime() error {
	if d.life != nil {
		d.life.start()
	}
	if d.cfg.Executable != "" {
		poll := d.cfg.ExecutablePoll
		if poll <= 0 {
			poll = 250 * time.Millisecond
		}
		// The file as it is now is what a change is told against; the watch itself is set up
		// beside the handshake, not before it: adding a watch costs the kernel time in
		// proportion to the folder's cached entries, several milliseconds in a busy folder
		// (docs/performance.md, "P5 — the daemon at rest"). Stop waits for it.
		first, err := os.Stat(d.cfg.Executable)
		if err != nil {
			return fmt.Errorf("server: watching the executable: %w", err)
		}
		d.exeSetup.Add(1)
		go func() {
			defer d.exeSetup.Done()
			// Told on the watcher's goroutine, which Stop waits for: the daemon stops on Start's.
			d.exe = watchExecutable(d.comp.agent.Watch, d.cfg.Executable, first, poll, func() {
				d.upgradeOnce.Do(func() { close(d.upgraded) })
			})
		}()
	}
	return nil
}

// Done is closed once the daemon has stopped, whether asked to or by itself (idle, upgraded).
func (d *Daemon) Done() <-chan struct{} { return d.done }

// Handshake returns what the daemon prints when ready.
func (d *Daemon) Handshake() Handshake { return d.shake }

// Tasks returns the task manager (tests inspect it).
func (d *Daemon) Tasks() *task.Manager { return d.tasks }

// Hosts returns the connected editors' hosts (tests drive a host's terminal through it).
func (d *Daemon) Hosts() *hostbridge.Registry { return d.comp.hosts }

// PrintHandshake writes the handshake as one JSON line.
func (d *Daemon) PrintHandshake(w io.Writer) error {
	_, err := w.Write(d.shakeLine)
	return err
}

// Stop stops accepting calls, ends streams, stops every task and removes the socket and the
// handshake file. It may be called more than once and from several goroutines.
func (d *Daemon) Stop() {
	d.stopOnce.Do(d.stop)
	<-d.done
}

func (d *Daemon) stop() {
	defer close(d.done)
	if d.shakeInfo != nil {
		// First, so no new client finds a daemon that is going away.
		if err := removeHandshakeFile(d.cfg.HandshakeFile, d.shakeInfo, d.shake); err != nil {
			d.cfg.Logger.Warn("removing the handshake file", "err", err)
		}
	}
	d.exeSetup.Wait()
	if d.exe != nil {
		d.exe.Stop()
	}
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
	d.closeParts()
	if d.sockPath != "" {
		if err := removeOwnSocket(d.sockPath, d.sockInfo); err != nil {
			d.cfg.Logger.Warn("removing the socket", "err", err)
		}
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
	return listenLocal(cfg)
}

// ownSocket records which socket file this daemon bound. The daemon, not the listener (which
// does not unlink its path on close), removes it when stopping, and only while the path is still
// that file: by then it may belong to the next daemon.
func ownSocket(sock string) (os.FileInfo, error) {
	fi, err := os.Lstat(sock)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return fi, nil
}

// removeOwnSocket removes sock if it is still the socket file bound (described by mine), under
// the starters' lock so no new daemon binds in between.
func removeOwnSocket(sock string, mine os.FileInfo) error {
	unlock, err := lockFile(sock + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	now, err := os.Lstat(sock)
	if err != nil || !sameFile(now, mine) {
		return nil
	}
	if err := os.Remove(sock); err != nil {
		return fmt.Errorf("server: removing the socket: %w", err)
	}
	return nil
}

// authenticator checks `authorization: Bearer <token>` on every call; an authenticated call or
// stream counts as a client of the daemon's lifetime (when it has one) while it lasts.
type authenticator struct {
	token []byte
	life  *lifetime
}

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
	if a.life != nil {
		a.life.enter()
		defer a.life.leave()
	}
	return h(ctx, req)
}

func (a authenticator) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := a.check(ss.Context()); err != nil {
		return err
	}
	if a.life != nil {
		a.life.enter()
		defer a.life.leave()
	}
	return h(srv, ss)
}

// recoverUnary reports a handler panic as Internal and keeps the daemon serving
// (docs/conventions.md, "Bugs are reported and survived").
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
