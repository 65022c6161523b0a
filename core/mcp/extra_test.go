package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A hub's Extra servers (a task's own) join the settings file's: a name in both is Extra's,
// and the file is not written.
func TestExtraServersJoinTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	writeSettings(t, path, map[string]any{
		"shared": map[string]any{"command": "shared-server", "disabled": true},
		"both":   map[string]any{"command": "from-file", "disabled": true},
	})
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := New(Options{SettingsPath: path, NoWatch: true,
		Extra: []byte(`{"mcpServers": {"own": {"command": "own-server", "disabled": true}, "both": {"command": "from-task", "disabled": true}}}`)})
	h.Start()
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	got := map[string]string{}
	for _, s := range h.Servers() {
		got[s.Name] = s.Config.Command
	}
	want := map[string]string{"shared": "shared-server", "both": "from-task", "own": "own-server"}
	if len(got) != len(want) {
		t.Fatalf("servers = %v, want %v", got, want)
	}
	for n, c := range want {
		if got[n] != c {
			t.Errorf("%s: command %q, want %q", n, got[n], c)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Errorf("the settings file changed: %s, %v", after, err)
	}
}

// A task's hub on the daemon's (Options.Shared) starts only the task's servers: the user's are
// the daemon's own connections, offered as they are, a name in both is the task's, and
// closing the task's hub leaves the daemon's servers in place.
func TestSharedHubServersAreNotStartedTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	writeSettings(t, path, map[string]any{
		"user": map[string]any{"command": "user-server", "disabled": true},
		"both": map[string]any{"command": "from-file", "disabled": true},
	})
	daemon := New(Options{SettingsPath: path, NoWatch: true})
	daemon.Start()
	t.Cleanup(func() {
		if err := daemon.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	task := New(Options{SettingsPath: path, NoWatch: true, Shared: daemon,
		Extra: []byte(`{"mcpServers": {"own": {"command": "own-server", "disabled": true}, "both": {"command": "from-task", "disabled": true}}}`)})
	task.Start()
	got := map[string]string{}
	for _, s := range task.Servers() {
		got[s.Name] = s.Config.Command
	}
	want := map[string]string{"user": "user-server", "both": "from-task", "own": "own-server"}
	if len(got) != len(want) {
		t.Fatalf("servers = %v, want %v", got, want)
	}
	for n, c := range want {
		if got[n] != c {
			t.Errorf("%s: command %q, want %q", n, got[n], c)
		}
	}
	task.mu.Lock()
	_, started := task.conns["user"]
	task.mu.Unlock()
	shared, err := daemon.conn("user")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := task.conn("user"); started || err != nil || c != shared {
		t.Errorf("the task's hub started the user's server itself (started %v, %v): it must use the daemon's", started, err)
	}
	changes, cancel := task.Subscribe()
	daemon.changed()
	if _, ok := <-changes; !ok {
		t.Error("the task's subscription closed")
	}
	cancel()
	if err := task.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.Server("user"); err != nil {
		t.Errorf("closing the task's hub stopped the daemon's server: %v", err)
	}
}
