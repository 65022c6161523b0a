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
