package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/task"
)

// everythingHub starts a hub with the everything server (installed by npm ci) and waits for
// it to connect.
func everythingHub(t *testing.T) *mcp.Hub {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	name := "mcp-server-everything"
	if runtime.GOOS == "windows" {
		name += ".cmd" // npm's launcher there; a node_modules installed on Linux has none
	}
	bin := filepath.Join(filepath.Dir(file), "..", "..", "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the everything MCP server is not installed: run `npm ci` in the repository root (%v)", err)
	}
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": bin, "args": []string{"stdio"}},
		"off":        map[string]any{"command": "x", "disabled": true},
	}})
	if err := os.WriteFile(path, settings, 0o600); err != nil {
		t.Fatal(err)
	}
	h := mcp.New(mcp.Options{SettingsPath: path, NoWatch: true})
	changes, cancel := h.Subscribe()
	defer cancel()
	h.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	for {
		s, err := h.Server("everything")
		if err == nil && s.Status == mcp.StatusConnected {
			return h
		}
		if err == nil && s.Status == mcp.StatusDisconnected && s.Error != "" {
			t.Fatalf("the everything server did not start: %s", s.Error)
		}
		<-changes
	}
}

// With a hub, a task offers the MCP tools, its prompt lists the connected server (tools,
// schemas, templates, resources, instructions) but not the disabled one, and /mcp:…
// expands the server's prompt.
func TestTasksUseTheHub(t *testing.T) {
	hub := everythingHub(t)
	a := New(newEnv(), Config{MCP: hub, GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Turns.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, name := range []string{"use_mcp_tool", "access_mcp_resource", "load_mcp_documentation"} {
		if _, ok := d.Registry.Get(name); !ok {
			t.Errorf("%s is not offered", name)
		}
	}
	sys := d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil)
	for _, want := range []string{"MCP SERVERS", "## everything", "### Instructions", "- echo: ", `"message"`,
		"demo://resource/dynamic/text/{resourceId}", "### Direct Resources"} {
		if !strings.Contains(sys, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(sys, "## off") || strings.Contains(sys, "off (") {
		t.Error("a disabled server is in the prompt")
	}
	for in, want := range map[string]string{
		"/mcp:everything:simple-prompt":                         "This is a simple prompt without arguments.",
		"/mcp:everything:args-prompt city=Lyon\nand a question": "What's weather in Lyon?\n\nand a question",
		"/mcp:nowhere:x": "could not be loaded",
		"plain text":     "plain text",
	} {
		if got := d.Turns.ExpandUser(context.Background(), in); !strings.Contains(got, want) {
			t.Errorf("%q expanded to %q", in, got)
		}
	}
}

// Without servers, no MCP tool and no MCP section.
func TestNoHubNoMCP(t *testing.T) {
	a := New(newEnv(), Config{MCP: mcp.New(mcp.Options{}), GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Turns.Close(); err != nil {
			t.Error(err)
		}
	}()
	if _, ok := d.Registry.Get("use_mcp_tool"); ok {
		t.Error("MCP tools offered without servers")
	}
	if sys := d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil); strings.Contains(sys, "MCP SERVERS") || strings.Contains(sys, "use_mcp_tool") {
		t.Error("the prompt mentions MCP without servers")
	}
}
