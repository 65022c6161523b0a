package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/egress"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/server"
)

// sharedDir is a data dir short enough for its socket (Unix socket paths are limited).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cairn-mw-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}

func sharedConfig(dir string) server.Config {
	return server.Config{DataDir: dir, HandshakeFile: server.HandshakePath(dir), Version: "test"}
}

func startShared(t *testing.T, cfg server.Config) *server.Daemon {
	t.Helper()
	d, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

func readToken(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// getState makes one authenticated call with token.
func getState(t *testing.T, address, token string) error {
	t.Helper()
	conn, err := servertest.Dial(address, token)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cairnv1.NewStateServiceClient(conn).GetState(context.Background(), &cairnv1.GetStateRequest{})
	return errors.Join(err, conn.Close())
}

// waitDone fails the test if the daemon has not stopped after a long while (a guard against a
// hang, not a measurement).
func waitDone(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the daemon did not stop: %s", what)
	}
}

func TestHandshakeFileWrittenAndRemoved(t *testing.T) {
	dir := sharedDir(t)
	d := startShared(t, sharedConfig(dir))
	path := server.HandshakePath(dir)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("handshake file mode %v, want 0600", fi.Mode().Perm())
	}
	got, err := server.ReadHandshakeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != d.Handshake() {
		t.Fatalf("handshake file %+v, daemon %+v", got, d.Handshake())
	}
	if got.PID != os.Getpid() || got.Version != "test" || got.Address != "unix://"+filepath.Join(dir, "daemon.sock") {
		t.Fatalf("handshake file %+v", got)
	}
	if err := getState(t, got.Address, readToken(t, got.TokenFile)); err != nil {
		t.Fatalf("call with the file's token: %v", err)
	}
	// No temporary files are left beside it.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".daemon-") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
	d.Stop()
	for _, p := range []string{path, filepath.Join(dir, "daemon.sock")} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s after stop: %v", p, err)
		}
	}
	if _, err := server.FindDaemon(dir); !errors.Is(err, server.ErrNoDaemon) {
		t.Fatalf("FindDaemon after stop = %v, want ErrNoDaemon", err)
	}
}

// A start that fails after its token and handshake files were written leaves no handshake
// and no socket behind: a client finds no daemon rather than one that never served.
func TestFailedStartLeavesNoHandshake(t *testing.T) {
	dir := sharedDir(t)
	bad := filepath.Join(dir, "not-a-ca.pem")
	if err := os.WriteFile(bad, []byte("no certificate here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := sharedConfig(dir)
	cfg.Egress = &egress.Config{CAFiles: []string{bad}}
	if _, err := server.Start(context.Background(), cfg); !errors.Is(err, egress.ErrBadCA) {
		t.Fatalf("Start with a CA file holding no certificate = %v, want ErrBadCA", err)
	}
	for _, p := range []string{server.HandshakePath(dir), filepath.Join(dir, "daemon.sock")} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after the failed start: %v", p, err)
		}
	}
	if _, err := server.FindDaemon(dir); !errors.Is(err, server.ErrNoDaemon) {
		t.Fatalf("FindDaemon after the failed start = %v, want ErrNoDaemon", err)
	}
	// The next start is not hindered by what the failed one left.
	d := startShared(t, sharedConfig(dir))
	got, err := server.FindDaemon(dir)
	if err != nil || got != d.Handshake() {
		t.Fatalf("FindDaemon = %+v, %v; want %+v", got, err, d.Handshake())
	}
}

func TestSecondDaemonDefersToTheFirst(t *testing.T) {
	dir := sharedDir(t)
	first := startShared(t, sharedConfig(dir))
	_, err := server.Start(context.Background(), sharedConfig(dir))
	if !errors.Is(err, server.ErrDaemonRunning) {
		t.Fatalf("second Start = %v, want ErrDaemonRunning", err)
	}
	// The loser changed nothing: a client still finds and reaches the first.
	hs, err := server.FindDaemon(dir)
	if err != nil {
		t.Fatal(err)
	}
	if hs != first.Handshake() {
		t.Fatalf("found %+v, want the first daemon %+v", hs, first.Handshake())
	}
	if err := getState(t, hs.Address, readToken(t, hs.TokenFile)); err != nil {
		t.Fatalf("the first daemon after the second's attempt: %v", err)
	}
}

func TestSimultaneousStartsOneWinner(t *testing.T) {
	dir := sharedDir(t)
	const n = 6
	var wg sync.WaitGroup
	daemons := make([]*server.Daemon, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			daemons[i], errs[i] = server.Start(context.Background(), sharedConfig(dir))
		}()
	}
	wg.Wait()
	var winner *server.Daemon
	for i := range n {
		switch {
		case errs[i] == nil:
			if winner != nil {
				t.Fatalf("two daemons started on one data dir")
			}
			winner = daemons[i]
			t.Cleanup(winner.Stop)
		case !errors.Is(errs[i], server.ErrDaemonRunning):
			t.Fatalf("start %d: %v", i, errs[i])
		}
	}
	if winner == nil {
		t.Fatal("no daemon started")
	}
	hs, err := server.FindDaemon(dir)
	if err != nil || hs != winner.Handshake() {
		t.Fatalf("found %+v (%v), want the winner %+v", hs, err, winner.Handshake())
	}
	if err := getState(t, hs.Address, readToken(t, hs.TokenFile)); err != nil {
		t.Fatal(err)
	}
}

func TestIdleExit(t *testing.T) {
	t.Run("nobody connects", func(t *testing.T) {
		dir := sharedDir(t)
		cfg := sharedConfig(dir)
		cfg.IdleExit = 20 * time.Millisecond
		d := startShared(t, cfg)
		waitDone(t, d.Done(), "idle without clients")
		if _, err := os.Stat(server.HandshakePath(dir)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("handshake file after idle exit: %v", err)
		}
	})
	t.Run("after the last host leaves", func(t *testing.T) {
		dir := sharedDir(t)
		cfg := sharedConfig(dir)
		cfg.IdleExit = 20 * time.Millisecond
		d := startShared(t, cfg)
		hs := d.Handshake()
		conn, err := servertest.Dial(hs.Address, readToken(t, hs.TokenFile))
		if err != nil {
			t.Fatal(err)
		}
		defer closeOrFail(t, conn)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stream, err := cairnv1.NewHostBridgeServiceClient(conn).Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{}}); err != nil {
			t.Fatal(err)
		}
		if first, err := stream.Recv(); err != nil || first.GetWelcome() == nil {
			t.Fatalf("welcome: %v %v", first, err)
		}
		select {
		case <-d.Done():
			t.Fatal("the daemon stopped while a host was connected")
		default:
		}
		cancel()
		waitDone(t, d.Done(), "idle after the host left")
	})
}

func TestExecutableReplacedStopsDaemon(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, exe string)
	}{
		{"renamed over", func(t *testing.T, exe string) {
			next := exe + ".new"
			if err := os.WriteFile(next, []byte("version 2"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(next, exe); err != nil {
				t.Fatal(err)
			}
		}},
		{"removed", func(t *testing.T, exe string) {
			if err := os.Remove(exe); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewritten in place", func(t *testing.T, exe string) {
			if err := os.WriteFile(exe, []byte("version 2, longer"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sharedDir(t)
			exe := filepath.Join(dir, "cairn-bin")
			if err := os.WriteFile(exe, []byte("version 1"), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := sharedConfig(dir)
			cfg.Executable, cfg.ExecutablePoll = exe, 5*time.Millisecond
			d := startShared(t, cfg)
			tt.change(t, exe)
			waitDone(t, d.Done(), "after the executable changed")
		})
	}
}

func TestStaleSocketAndHandshakeRecovered(t *testing.T) {
	dir := sharedDir(t)
	sock := filepath.Join(dir, "daemon.sock")
	// A socket file nobody listens on, as a SIGKILLed daemon leaves it.
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	closeOrFail(t, l)
	// And its handshake file, naming a process that is gone.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := server.Handshake{Address: "unix://" + sock, TokenFile: filepath.Join(dir, "daemon.token"), PID: gone.Process.Pid, Version: "old"}
	b, _ := json.Marshal(stale)
	if err := os.WriteFile(server.HandshakePath(dir), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := server.FindDaemon(dir); !errors.Is(err, server.ErrNoDaemon) {
		t.Fatalf("FindDaemon with a dead pid = %v, want ErrNoDaemon", err)
	}
	d := startShared(t, sharedConfig(dir))
	hs, err := server.FindDaemon(dir)
	if err != nil || hs != d.Handshake() {
		t.Fatalf("found %+v (%v), want %+v", hs, err, d.Handshake())
	}
	if err := getState(t, hs.Address, readToken(t, hs.TokenFile)); err != nil {
		t.Fatal(err)
	}
}

// TestSilentSocketIsStale: a socket that accepts connections nobody serves (a dying daemon's
// child still holding the listener) does not stop a new daemon.
func TestSilentSocketIsStale(t *testing.T) {
	dir := sharedDir(t)
	silent, err := net.Listen("unix", filepath.Join(dir, "daemon.sock"))
	if err != nil {
		t.Fatal(err)
	}
	silent.(*net.UnixListener).SetUnlinkOnClose(false)
	defer closeOrFail(t, silent)
	d := startShared(t, sharedConfig(dir))
	if err := getState(t, d.Handshake().Address, readToken(t, d.Handshake().TokenFile)); err != nil {
		t.Fatal(err)
	}
}

// TestStoppingDaemonLeavesTheNextOnesFiles: a daemon that stops after another took over the
// socket path and the handshake file (its files were removed under it) removes neither.
func TestStoppingDaemonLeavesTheNextOnesFiles(t *testing.T) {
	dir := sharedDir(t)
	old := startShared(t, sharedConfig(dir))
	sock := filepath.Join(dir, "daemon.sock")
	for _, p := range []string{sock, server.HandshakePath(dir)} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	// Another version, so the two handshakes differ (in one process they share the pid).
	cfg := sharedConfig(dir)
	cfg.Version = "next"
	next := startShared(t, cfg)
	old.Stop()
	hs, err := server.ReadHandshakeFile(server.HandshakePath(dir))
	if err != nil || hs != next.Handshake() {
		t.Fatalf("handshake file after the old daemon stopped: %+v, %v", hs, err)
	}
	if err := getState(t, hs.Address, readToken(t, hs.TokenFile)); err != nil {
		t.Fatalf("the next daemon after the old one stopped: %v", err)
	}
}

func TestTokenFreshAtEveryStart(t *testing.T) {
	dir := sharedDir(t)
	d1 := startShared(t, sharedConfig(dir))
	tok1 := readToken(t, d1.Handshake().TokenFile)
	fi1 := holdOpen(t, d1.Handshake().TokenFile)
	d1.Stop()
	d2 := startShared(t, sharedConfig(dir))
	tok2 := readToken(t, d2.Handshake().TokenFile)
	if tok1 == tok2 || len(tok2) != 64 {
		t.Fatalf("tokens %q then %q: want a new 64-digit token per start", tok1, tok2)
	}
	// The file the first start made is written over, not made again (on Unix: creating a file
	// costs some file systems more than the rest of a start).
	fi2, err := os.Lstat(d2.Handshake().TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && !os.SameFile(fi1, fi2) {
		t.Error("the second start made a new token file instead of writing over its own")
	}
	if err := getState(t, d2.Handshake().Address, tok1); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the previous start's token: %v, want Unauthenticated", err)
	}
}

func TestPlantedTokenNotAdopted(t *testing.T) {
	const planted = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"ours, world readable", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(planted+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"ours, 0600", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(planted+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"ours, 0600, longer than a token", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(planted+"\n"+planted+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a second link to a file elsewhere", func(t *testing.T, path string) {
			target := path + ".target"
			if err := os.WriteFile(target, []byte(planted+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(target, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symlink to a file elsewhere", func(t *testing.T, path string) {
			target := path + ".target"
			if err := os.WriteFile(target, []byte(planted+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sharedDir(t)
			tokenFile := filepath.Join(dir, "daemon.token")
			tt.plant(t, tokenFile)
			d := startShared(t, sharedConfig(dir))
			fi, err := os.Lstat(tokenFile)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Fatalf("token file mode %v, want a regular 0600 file", fi.Mode())
			}
			if got := readToken(t, tokenFile); got == planted {
				t.Fatal("the planted token was adopted")
			}
			if b, err := os.ReadFile(tokenFile); err != nil || len(b) != 65 {
				t.Fatalf("token file holds %d bytes (%v), want the token and a newline", len(b), err)
			}
			if err := getState(t, d.Handshake().Address, planted); status.Code(err) != codes.Unauthenticated {
				t.Fatalf("call with the planted token: %v, want Unauthenticated", err)
			}
			if target := tokenFile + ".target"; fileExists(target) && readToken(t, target) != planted {
				t.Fatal("the link's target was written through")
			}
		})
	}
	t.Run("another owner", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to plant a file owned by another user")
		}
		dir := sharedDir(t)
		tokenFile := filepath.Join(dir, "daemon.token")
		if err := os.WriteFile(tokenFile, []byte(planted+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(tokenFile, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err := server.Start(context.Background(), sharedConfig(dir))
		if !errors.Is(err, server.ErrTokenFile) {
			t.Fatalf("Start with a foreign token file = %v, want ErrTokenFile", err)
		}
		if readToken(t, tokenFile) != planted {
			t.Fatal("the foreign file was changed")
		}
		// The refused start left nothing behind that would block the next one.
		if err := os.Remove(tokenFile); err != nil {
			t.Fatal(err)
		}
		startShared(t, sharedConfig(dir))
	})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// serveProc runs the real `cairn serve` on dir and returns once it printed its handshake.
func serveProc(t *testing.T, bin, dir string, args ...string) (*exec.Cmd, server.Handshake) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--data-dir", dir}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	var hs server.Handshake
	if err := json.Unmarshal([]byte(line), &hs); err != nil {
		t.Fatalf("handshake %q: %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd, hs
}

// waitExit waits for the process to end by itself and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd, what string) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("cairn serve did not exit: %s", what)
	}
	return cmd.ProcessState.ExitCode()
}

// TestServeProcessLifetime drives the real binary: a second serve defers to the first (exit 4),
// SIGKILL leaves a stale socket and handshake that the next start recovers, an idle daemon
// exits by itself, and one whose binary is replaced exits at once.
func TestServeProcessLifetime(t *testing.T) {
	bin := buildCairn(t)
	t.Run("second serve defers, SIGKILL is recovered", func(t *testing.T) {
		dir := sharedDir(t)
		first, hs := serveProc(t, bin, dir, "--idle-exit", "0")
		if resolved, _ := filepath.EvalSymlinks(bin); hs.Executable != resolved {
			t.Fatalf("handshake executable %q, want %q", hs.Executable, resolved)
		}
		second := exec.Command(bin, "serve", "--data-dir", dir)
		if err := second.Run(); second.ProcessState.ExitCode() != 4 {
			t.Fatalf("second serve: %v, exit %d; want exit 4", err, second.ProcessState.ExitCode())
		}
		if found, err := server.FindDaemon(dir); err != nil || found != hs {
			t.Fatalf("found %+v (%v), want %+v", found, err, hs)
		}
		if err := first.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = first.Wait()
		if _, err := server.FindDaemon(dir); !errors.Is(err, server.ErrNoDaemon) {
			t.Fatalf("FindDaemon after SIGKILL = %v", err)
		}
		_, hs2 := serveProc(t, bin, dir, "--idle-exit", "0")
		if hs2.PID == hs.PID || hs2.Address != hs.Address {
			t.Fatalf("restart handshake %+v after %+v", hs2, hs)
		}
		if err := getState(t, hs2.Address, readToken(t, hs2.TokenFile)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("idle exit", func(t *testing.T) {
		dir := sharedDir(t)
		cmd, hs := serveProc(t, bin, dir, "--idle-exit", "300ms")
		if err := getState(t, hs.Address, readToken(t, hs.TokenFile)); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd, "idle"); code != 0 {
			t.Fatalf("exit code %d", code)
		}
		if fileExists(server.HandshakePath(dir)) || fileExists(filepath.Join(dir, "daemon.sock")) {
			t.Fatal("handshake file or socket left after an idle exit")
		}
	})
	t.Run("SIGTERM and SIGINT stop it cleanly", func(t *testing.T) {
		// It catches them from its handshake on (docs/performance.md, "P5 — the daemon at rest").
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			dir := sharedDir(t)
			cmd, hs := serveProc(t, bin, dir, "--idle-exit", "0")
			if err := getState(t, hs.Address, readToken(t, hs.TokenFile)); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd, sig.String()); code != 0 {
				t.Fatalf("%v: exit code %d", sig, code)
			}
			if fileExists(server.HandshakePath(dir)) || fileExists(filepath.Join(dir, "daemon.sock")) {
				t.Fatalf("%v: handshake file or socket left", sig)
			}
		}
	})
	t.Run("stdin lifeline still ends the daemon", func(t *testing.T) {
		dir := sharedDir(t)
		cmd := exec.Command(bin, "serve", "--data-dir", dir, "--idle-exit", "0", "--stdin-lifeline")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		closeOrFail(t, stdin)
		if code := waitExit(t, cmd, "stdin closed"); code != 0 {
			t.Fatalf("exit code %d", code)
		}
	})
	t.Run("binary replaced", func(t *testing.T) {
		dir := sharedDir(t)
		copyBin := filepath.Join(dir, "cairn")
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(copyBin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd, _ := serveProc(t, copyBin, dir, "--idle-exit", "0")
		if err := os.WriteFile(copyBin+".new", b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(copyBin+".new", copyBin); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd, "binary replaced"); code != 0 {
			t.Fatalf("exit code %d", code)
		}
	})
}

// closeOrFail closes c and fails the test if that fails.
// holdOpen opens path until the test ends and returns its identity: held open, the file keeps
// its inode, so a new file cannot come back under its number.
func holdOpen(t *testing.T, path string) os.FileInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeOrFail(t, f) })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func closeOrFail(t *testing.T, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}
