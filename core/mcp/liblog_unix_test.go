//go:build unix

package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// What the MCP library logs on its own — the Streamable HTTP listener starting, a stdio answer
// that cannot be delivered — reaches the hub's logger, and nothing reaches the process's stdout
// or stderr, which in `cairn run` are the user's terminal (README, "Using it from the command
// line").
func TestLibraryLogsReachTheHubLogger(t *testing.T) {
	port := freePort(t)
	startProcess(t, os.Args[0], []string{"-test.run=^$"}, "CAIRN_MCP_TEST_SERVER=http", "PORT="+port)
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	hangup := testServerEntry()
	hangup["env"] = map[string]string{"CAIRN_MCP_TEST_SERVER": "hangup"}
	writeSettings(t, path, map[string]any{
		"local":  testServerEntry(),
		"remote": map[string]any{"type": TypeStreamableHTTP, "url": "http://127.0.0.1:" + port + "/mcp"},
		"hangup": hangup,
	})
	rec := newRecorder()

	// While the output is captured the test reports nothing (a report would be captured too).
	restore := captureOutput(t)
	err := func() error {
		h := New(Options{SettingsPath: path, ClientVersion: "test", Logger: slog.New(rec),
			RetryBase: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond})
		h.Start()
		err := useServers(h, rec)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return errors.Join(err, h.Close(ctx))
	}()
	out := restore()
	if err != nil {
		t.Error(err)
	}
	if out != "" {
		t.Errorf("written to the process's stdout/stderr:\n%s", out)
	}
	t.Logf("the hub's log:\n%s", strings.Join(rec.all(), "\n"))
}

// useServers connects, lists and calls the local and remote servers and waits for the
// library's lines in the hub's log.
func useServers(h *Hub, rec *recorder) error {
	ch, cancel := h.Subscribe()
	defer cancel()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		ss := h.Servers()
		if hasTool(find(ss, "local"), "steps") && hasTool(find(ss, "remote"), "steps") {
			break
		}
		select {
		case <-ch:
		case <-deadline.C:
			return fmt.Errorf("servers not connected: %s", describe(ss))
		}
	}
	for _, name := range []string{"local", "remote"} {
		if _, err := h.CallTool(context.Background(), name, "steps", nil, nil); err != nil {
			return fmt.Errorf("calling %s: %w", name, err)
		}
	}
	for _, want := range []string{"listening to server forever server=remote", "Error writing response server=hangup"} {
		if err := rec.wait(want, deadline.C); err != nil {
			return err
		}
	}
	return nil
}

// captureOutput points the process's stdout and stderr file descriptors at a pipe (so writes
// through any *os.File or the log package are caught) until the returned func restores them
// and returns what was written.
func captureOutput(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var saved [3]int
	for _, fd := range []int{1, 2} {
		if saved[fd], err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			t.Fatal(err)
		}
		if err := unix.Dup2(int(w.Fd()), fd); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(&buf, r)
		copied <- err
	}()
	return func() string {
		var errs []error
		for _, fd := range []int{1, 2} {
			errs = append(errs, unix.Dup2(saved[fd], fd), unix.Close(saved[fd]))
		}
		errs = append(errs, w.Close(), <-copied, r.Close())
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("restoring stdout/stderr: %v", err)
		}
		return buf.String()
	}
}

// recorder is a slog handler that keeps each record as "message key=value…".
type recorder struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
	attrs   []slog.Attr
	root    *recorder
}

func newRecorder() *recorder {
	r := &recorder{changed: make(chan struct{}, 1)}
	r.root = r
	return r
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range r.attrs {
		write(a)
	}
	rec.Attrs(write)
	root := r.root
	root.mu.Lock()
	root.lines = append(root.lines, b.String())
	root.mu.Unlock()
	select {
	case root.changed <- struct{}{}:
	default:
	}
	return nil
}

func (r *recorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &recorder{root: r.root, attrs: append(append([]slog.Attr{}, r.attrs...), as...)}
}

// WithGroup is not used by the hub or the library; groups are flattened.
func (r *recorder) WithGroup(string) slog.Handler { return r }

func (r *recorder) all() []string {
	r.root.mu.Lock()
	defer r.root.mu.Unlock()
	return append([]string{}, r.root.lines...)
}

// wait returns once a recorded line starts with want, or fails at the deadline.
func (r *recorder) wait(want string, deadline <-chan time.Time) error {
	for {
		for _, l := range r.all() {
			if strings.HasPrefix(l, want) {
				return nil
			}
		}
		select {
		case <-r.root.changed:
		case <-deadline:
			return fmt.Errorf("no %q in the hub's log:\n%s", want, strings.Join(r.all(), "\n"))
		}
	}
}
