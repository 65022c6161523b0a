package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/watch"
)

// A tool added after the handshake arrives through notifications/tools/list_changed.
func TestListChanged(t *testing.T) {
	h, _ := startHub(t, map[string]any{"t": testServerEntry()})
	ss := waitState(t, h, "t connected", status("t", StatusConnected))
	if hasTool(find(ss, "t"), "late_tool") || find(ss, "t").Instructions != "Use add_tool before late_tool." {
		t.Fatalf("start state: %s", describe(ss))
	}
	if _, err := h.CallTool(context.Background(), "t", "add_tool", nil, nil); err != nil {
		t.Fatal(err)
	}
	waitState(t, h, "late_tool listed", func(ss []Server) bool { return hasTool(find(ss, "t"), "late_tool") })

}

// A server that crashes shows the error and its stderr, then is connected again by the
// backoff; Restart reconnects at once.
func TestCrashAndRestart(t *testing.T) {
	h, _ := startHub(t, map[string]any{"t": testServerEntry()})
	waitState(t, h, "t connected", status("t", StatusConnected))
	ch, cancel := h.Subscribe()
	defer cancel()
	if _, err := h.CallTool(context.Background(), "t", "crash", nil, nil); err == nil {
		t.Fatal("a crashed call returned no error")
	}
	// The crash is recorded (error + stderr) before the reconnect begins.
	var crashed Server
	waitState(t, h, "crash recorded", func(ss []Server) bool {
		s := find(ss, "t")
		if strings.Contains(s.Error, "exit status 3") {
			crashed = s
			return true
		}
		return false
	})
	if !strings.Contains(crashed.Stderr, "crashing on purpose") {
		t.Errorf("stderr tail: %q", crashed.Stderr)
	}
	waitState(t, h, "t reconnected", status("t", StatusConnected))
	select {
	case <-ch:
	default:
		t.Error("subscribers were not told")
	}
	if err := h.Restart("t"); err != nil {
		t.Fatal(err)
	}
	waitState(t, h, "t connected after restart", status("t", StatusConnected))
	if _, err := h.CallTool(context.Background(), "t", "steps", nil, nil); err != nil {
		t.Fatalf("call after restart: %v", err)
	}
	if err := h.Restart("nope"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("restart unknown: %v", err)
	}
}

// A server that never answers times out with a clear error; the other server is unaffected.
func TestServerThatNeverStarts(t *testing.T) {
	h, _ := startHub(t, map[string]any{
		"silent": map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"}, "timeout": 1,
			"env": map[string]string{"CAIRN_MCP_TEST_SERVER": "silent"}},
		"t": testServerEntry(),
	})
	// A call made while the servers are still starting waits for its server, not longer.
	if err := h.WaitReady(context.Background(), "t"); err != nil {
		t.Fatalf("wait for t: %v", err)
	}
	if err := h.WaitReady(context.Background(), "silent"); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("wait for silent: %v", err)
	}
	if err := h.WaitReady(context.Background(), "nope"); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("wait for nope: %v", err)
	}
	ss := waitState(t, h, "silent timed out and t connected", func(ss []Server) bool {
		return strings.Contains(find(ss, "silent").Error, "did not answer within 1 s") && find(ss, "t").Status == StatusConnected
	})
	if _, err := h.CallTool(context.Background(), "silent", "x", nil, nil); !errors.Is(err, ErrNotConnected) {
		t.Errorf("call to a server that is not connected: %v", err)
	}
	if find(ss, "silent").Config.Timeout != 1 {
		t.Errorf("config: %+v", find(ss, "silent").Config)
	}
}

// Bad settings: a file that is not JSON is reported and changes nothing (servers keep
// running, edits refuse to overwrite it); a bad entry shows its error beside good ones.
func TestBadSettings(t *testing.T) {
	h, path := startHub(t, nil)
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(); !errors.Is(err, ErrBadSettings) || h.SettingsError() == "" {
		t.Fatalf("bad JSON: %v / %q", err, h.SettingsError())
	}
	writeSettings(t, path, map[string]any{
		"t":       testServerEntry(),
		"nocmd":   map[string]any{"args": []string{"x"}},
		"badtype": map[string]any{"type": "carrier-pigeon", "url": "http://x"},
		"wrong":   map[string]any{"command": 42},
	})
	// The watcher applies the file; Reload makes the test independent of its timing.
	if err := h.Reload(); err != nil {
		t.Fatal(err)
	}
	ss := waitState(t, h, "t connected", status("t", StatusConnected))
	for name, want := range map[string]string{"nocmd": `needs "command"`, "badtype": "unknown type", "wrong": "cannot unmarshal"} {
		if s := find(ss, name); s.Status != StatusDisconnected || !strings.Contains(s.Error, want) {
			t.Errorf("%s: %s %q", name, s.Status, s.Error)
		}
	}
	if h.SettingsError() != "" {
		t.Errorf("settings error left over: %s", h.SettingsError())
	}
	broken := []byte(`{"mcpServers": {"t": `)
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(); !errors.Is(err, ErrBadSettings) {
		t.Fatalf("reload of broken file: %v", err)
	}
	if find(h.Servers(), "t").Status != StatusConnected {
		t.Error("a broken file stopped a running server")
	}
	if err := h.SetDisabled("t", true); !errors.Is(err, ErrBadSettings) {
		t.Errorf("edit of a broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(broken) {
		t.Errorf("the broken file was overwritten: %s", b)
	}
}

// Edits through the hub change only what they mean to and apply without a restart.
func TestEdits(t *testing.T) {
	dir := t.TempDir()
	h, path := startHub(t, map[string]any{
		"a": map[string]any{"command": "no-such-command", "disabled": true, "futureKey": "kept"},
	})
	steps := []struct {
		name string
		do   func() error
		want func(Server) bool
	}{
		{"auto-approve on", func() error { return h.SetToolAutoApprove("a", "echo", true) },
			func(s Server) bool { return len(s.Config.AutoApprove) == 1 && s.Config.AutoApprove[0] == "echo" }},
		{"auto-approve twice", func() error { return h.SetToolAutoApprove("a", "echo", true) },
			func(s Server) bool { return len(s.Config.AutoApprove) == 1 }},
		{"timeout", func() error { return h.SetTimeout("a", 5) }, func(s Server) bool { return s.Config.Timeout == 5 }},
		{"auto-approve off", func() error { return h.SetToolAutoApprove("a", "echo", false) },
			func(s Server) bool { return len(s.Config.AutoApprove) == 0 }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if s := find(h.Servers(), "a"); s.Status != StatusDisabled || !st.want(s) {
			t.Fatalf("%s: %+v", st.name, s)
		}
	}
	if err := h.SetTimeout("a", 0); !errors.Is(err, ErrBadSettings) {
		t.Errorf("timeout 0: %v", err)
	}
	if err := h.AddRemote("web", "http://127.0.0.1:1/mcp", TypeStreamableHTTP); err != nil {
		t.Fatal(err)
	}
	if err := h.AddRemote("web", "http://127.0.0.1:1/mcp", TypeSSE); !errors.Is(err, ErrBadName) {
		t.Errorf("duplicate: %v", err)
	}
	if err := h.AddRemote("bad", "ftp://x", TypeSSE); !errors.Is(err, ErrBadSettings) {
		t.Errorf("bad url: %v", err)
	}
	if s := find(h.Servers(), "web"); s.Config.URL != "http://127.0.0.1:1/mcp" || s.Status == StatusDisabled {
		t.Errorf("web: %+v", s)
	}
	if err := h.Delete("web"); err != nil || find(h.Servers(), "web").Name != "" {
		t.Errorf("delete: %v", err)
	}

	cline := filepath.Join(dir, "cline_mcp_settings.json")
	writeSettings(t, cline, map[string]any{
		"a":     map[string]any{"command": "other"},
		"fresh": map[string]any{"command": "x", "disabled": true, "autoApprove": []string{"t1"}},
	})
	added, skipped, err := h.Import(cline)
	if err != nil || strings.Join(added, ",") != "fresh" || strings.Join(skipped, ",") != "a" {
		t.Fatalf("import: %v %v %v", added, skipped, err)
	}
	if !h.ToolAutoApproved("fresh", "t1") || h.ToolAutoApproved("fresh", "t2") {
		t.Error("imported autoApprove list not applied")
	}
	if _, _, err := h.Import(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("import of a missing file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"futureKey": "kept"`) || strings.Contains(string(b), "other") {
		t.Errorf("settings file after edits:\n%s", b)
	}
}

func TestExpandEnv(t *testing.T) {
	t.Setenv("CAIRN_TEST_TOKEN", "s3cret")
	for in, want := range map[string]string{
		"Bearer ${env:CAIRN_TEST_TOKEN}": "Bearer s3cret",
		"${env:CAIRN_TEST_UNSET_VAR}x":   "x",
		"plain $HOME":                    "plain $HOME",
	} {
		if got := expandEnv(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

// An edit of the file by someone else applies without a restart.
func TestWatchedFile(t *testing.T) {
	h, path := startHub(t, map[string]any{"a": map[string]any{"command": "x", "disabled": true}})
	writeSettings(t, path, map[string]any{
		"a": map[string]any{"command": "x", "disabled": true},
		"b": map[string]any{"command": "y", "disabled": true, "autoApprove": []string{"t"}},
	})
	waitState(t, h, "b added by the watcher", func(ss []Server) bool { return find(ss, "b").Status == StatusDisabled })
	if !h.ToolAutoApproved("b", "t") {
		t.Error("b's autoApprove list was not read")
	}
}

// Given the daemon's file-system hub, the settings are watched through it (one watch of the
// settings folder, and no watcher of the MCP hub's own), and closing the MCP hub ends the watch.
// A save made before the watch is in place, right after Start, is read too.
func TestWatchedThroughTheDaemonsHub(t *testing.T) {
	h, fs, path := startOnDaemonsHub(t)
	// The watch is set up beside Start's caller, a moment later.
	for deadline := time.Now().Add(10 * time.Second); fs.Watches() != 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := fs.Watches(); n != 1 {
		t.Fatalf("the daemon's hub holds %d watches after Start, want the settings folder's one", n)
	}
	writeSettings(t, path, map[string]any{"b": map[string]any{"command": "y", "disabled": true}})
	waitState(t, h, "b added through the daemon's hub", func(ss []Server) bool { return find(ss, "b").Status == StatusDisabled })
	closeHub(t, h)
	if n := fs.Watches(); n != 0 {
		t.Errorf("the daemon's hub holds %d watches after the MCP hub closed, want 0", n)
	}
}

// A save made at once after Start, before its watch can be in place, is read all the same.
func TestSaveRightAfterStart(t *testing.T) {
	h, _, path := startOnDaemonsHub(t)
	writeSettings(t, path, map[string]any{"b": map[string]any{"command": "y", "disabled": true}})
	waitState(t, h, "b, saved right after Start", func(ss []Server) bool { return find(ss, "b").Status == StatusDisabled })
	closeHub(t, h)
}

// startOnDaemonsHub starts an MCP hub with one disabled server "a", watched through a daemon's
// file-system hub, which the test's cleanup closes.
func startOnDaemonsHub(t *testing.T) (*Hub, *watch.Hub, string) {
	t.Helper()
	fs := watch.New()
	t.Cleanup(func() {
		if err := fs.Close(); err != nil {
			t.Error(err)
		}
	})
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	writeSettings(t, path, map[string]any{"a": map[string]any{"command": "x", "disabled": true}})
	h := New(Options{SettingsPath: path, ClientVersion: "test", Watch: fs})
	h.Start()
	return h, fs, path
}

// closeHub closes h, failing the test when it cannot.
func closeHub(t *testing.T, h *Hub) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
