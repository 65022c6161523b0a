package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
)

// writerServer offers write_file: it writes "hi" to the path it is given and answers
// "written", or the error as a tool error.
func writerServer() *server.MCPServer {
	s := server.NewMCPServer("cairn-writer", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("write_file", mcp.WithString("path", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := os.WriteFile(req.GetString("path", ""), []byte("hi"), 0o644); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if err := os.WriteFile(filepath.Join(os.TempDir(), "scratch"), []byte("hi"), 0o644); err != nil {
				return mcp.NewToolResultError("temp: " + err.Error()), nil
			}
			return mcp.NewToolResultText("written"), nil
		})
	return s
}

// startSandboxedHub is startHub with every stdio server in the sandbox, as the daemon starts
// them; the test is skipped where no sandbox can be set up, with the reason.
func startSandboxedHub(t *testing.T, servers map[string]any) *Hub {
	t.Helper()
	sandboxtest.Require(t)
	home, _ := os.UserHomeDir() // none: nothing of a home to mask
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	writeSettings(t, path, servers)
	h := New(Options{SettingsPath: path, ClientVersion: "test", RetryBase: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond,
		Sandbox: func() *sandbox.Base { return &sandbox.Base{Home: home} }})
	h.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return h
}

// A stdio server runs in the sandbox with a profile of its own (docs/sandbox.md): it writes in
// the folders its entry's writablePaths name and in its temp folder, and the kernel stops a
// write anywhere else.
func TestStdioServerWritesOnlyWhereConfigured(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	entry := testServerEntry()
	entry["env"] = map[string]string{"CAIRN_MCP_TEST_SERVER": "writer"}
	entry["writablePaths"] = []string{allowed}
	h := startSandboxedHub(t, map[string]any{"writer": entry})
	waitState(t, h, "writer connected", status("writer", StatusConnected))
	call := func(path string) CallResult {
		t.Helper()
		args, err := json.Marshal(map[string]string{"path": path})
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.CallTool(context.Background(), "writer", "write_file", args, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(filepath.Join(allowed, "in.txt")); res.IsError || len(res.Content) != 1 || res.Content[0].Text != "written" {
		t.Errorf("a write in writablePaths: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(allowed, "in.txt")); err != nil || string(b) != "hi" {
		t.Errorf("in.txt = %q, %v", b, err)
	}
	res := call(filepath.Join(outside, "out.txt"))
	if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "permission denied") {
		t.Errorf("a write outside writablePaths: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the server wrote outside its writablePaths")
	}
}

// A path of writablePaths that is neither absolute nor under ~/ makes the entry unusable, and
// says why.
func TestWritablePathsMustBeAbsolute(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the paths here are POSIX; Windows has no command sandbox (docs/sandbox.md)")
	}
	entries, err := parseSettings([]byte(`{"mcpServers": {"a": {"command": "x", "writablePaths": ["notes"]},
		"b": {"command": "x", "writablePaths": ["~/notes", "/srv/notes", "${env:HOME}/x"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Err == nil || !strings.Contains(entries[0].Err.Error(), `"notes" is not an absolute path`) || entries[1].Err != nil {
		t.Fatalf("entries: %+v", entries)
	}
	t.Setenv("HOME", "/home/u")
	if got := entries[1].Config.writable("/home/u"); strings.Join(got, " ") != "/home/u/notes /srv/notes /home/u/x" {
		t.Errorf("writable = %q", got)
	}
}

// The everything server (node, started through npm's launcher) works in the sandbox.
func TestEverythingInTheSandbox(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	h := startSandboxedHub(t, map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}})
	ss := waitState(t, h, "everything connected", status("everything", StatusConnected))
	exerciseEverything(t, h, find(ss, "everything"))
}
