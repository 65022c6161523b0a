package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	runtimedebug "runtime/debug"
	"syscall"
	"time"

	"github.com/cairnhq/cairn/server"
)

// exitDaemonRunning is serve's exit code when another daemon already serves the socket: the
// spawner then connects to that one through the handshake file.
const exitDaemonRunning = 4

// defaultIdleExit is how long a daemon waits for a new client after the last one left.
const defaultIdleExit = 60 * time.Second

// serve runs the daemon until a signal, until no client has used it for the idle grace, or
// until its executable is replaced.
func serve(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("serve", stdio)
	socket := fs.String("socket", "", "Unix socket path (default DATA_DIR/daemon.sock)")
	listen := fs.String("listen", "", "listen on 127.0.0.1:PORT instead of a socket")
	dir := fs.String("data-dir", "", "data directory")
	tokenFile := fs.String("token-file", "", "bearer token file (a fresh token is written, 0600, at every start)")
	idle := fs.Duration("idle-exit", defaultIdleExit, "exit this long after the last client left (0: never)")
	lifeline := fs.Bool("stdin-lifeline", false, "also exit when stdin closes (for a spawner the daemon should end with)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *socket != "" && *listen != "" {
		stdio.errf("cairn serve: --socket and --listen are exclusive\n")
		return exitUsage
	}
	if *idle < 0 {
		stdio.errf("cairn serve: --idle-exit must not be negative\n")
		return exitUsage
	}
	log := logger(stdio.Err)
	data := dataDir(*dir)
	exe, err := executable()
	if err != nil {
		// Not fatal: the daemon then only misses upgrades.
		log.Warn("cannot watch the executable for upgrades", "err", err)
	}
	d, err := server.Start(ctx, server.Config{DataDir: data, Socket: *socket, Listen: *listen,
		TokenFile: *tokenFile, Version: Version, Logger: log, HandshakeFile: server.HandshakePath(data),
		IdleExit: *idle, Executable: exe})
	if errors.Is(err, server.ErrDaemonRunning) {
		stdio.errf("cairn serve: %v (its handshake: %s)\n", err, server.HandshakePath(data))
		return exitDaemonRunning
	}
	if err != nil {
		stdio.errf("cairn serve: %v\n", err)
		return exitFailure
	}
	if err := d.PrintHandshake(stdio.Out); err != nil {
		// A spawner that went away before reading it does not stop a shared daemon.
		log.Warn("printing the handshake", "err", err)
	}
	// From now on SIGINT and SIGTERM stop the daemon cleanly; until now they ended it as they
	// end any process (cli.Main).
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	// Start-up garbage (package init, settings, the store's first reads) is gone by now; hand
	// its pages back at once rather than over the scavenger's next minutes, so an idle daemon
	// holds only what it uses. Once, after the handshake: the spawner is not kept waiting.
	runtimedebug.FreeOSMemory()
	if *lifeline {
		// The spawner keeps our stdin open; if it dies, even by SIGKILL, the pipe closes.
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			_, _ = io.Copy(io.Discard, stdio.In)
			cancel()
		}()
		ctx = lctx
	}
	select {
	case <-ctx.Done():
	case <-d.Done():
	}
	d.Stop()
	return exitOK
}

// executable is the running binary's path with symlinks resolved: the file an upgrade replaces.
func executable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("executable: %w", err)
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("executable: %w", err)
	}
	return r, nil
}
