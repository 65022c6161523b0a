package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestMain turns the test binary into a small MCP server when asked: over stdio ("1") or
// Streamable HTTP on 127.0.0.1:$PORT ("http"), it offers a tool that adds a tool
// (list_changed), one that answers, and one that crashes; "slow" is the stdio server after a
// pause of $CAIRN_MCP_TEST_DELAY (a server that takes its time to start); "writer" writes
// files.
func TestMain(m *testing.M) {
	switch os.Getenv("CAIRN_MCP_TEST_SERVER") {
	case "slow":
		d, err := time.ParseDuration(os.Getenv("CAIRN_MCP_TEST_DELAY"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		time.Sleep(d)
		if err := server.ServeStdio(testServer()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	case "1":
		if err := server.ServeStdio(testServer()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	case "http":
		if err := server.NewStreamableHTTPServer(testServer()).Start("127.0.0.1:" + os.Getenv("PORT")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	case "hangup":
		hangUp()
		return
	case "writer": // offers write_file, which writes a file where it is told (sandbox_test.go)
		if err := server.ServeStdio(writerServer()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	case "silent": // reads whatever it is sent and never answers, on every platform
		if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

func testServer() *server.MCPServer {
	s := server.NewMCPServer("cairn-test", "1.0.0", server.WithToolCapabilities(true),
		server.WithInstructions("Use add_tool before late_tool."))
	s.AddTool(mcp.NewTool("add_tool", mcp.WithDescription("Adds late_tool.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("late_tool", mcp.WithDescription("Added later.")),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("late"), nil
				})
			return mcp.NewToolResultText("added"), nil
		})
	s.AddTool(mcp.NewTool("steps", mcp.WithDescription("Answers.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("done"), nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes."), mcp.WithString("message", mcp.Required())),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo"), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("remote", "An input schema with a remote reference.",
		json.RawMessage(`{"type":"object","required":["x"],"properties":{"x":{"$ref":"https://example.com/x.json"}}}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("remote"), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("defs", "An input schema with a local reference.",
		json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"$ref":"#/$defs/count"}},`+
			`"$defs":{"count":{"type":"integer","minimum":1}}}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("defs"), nil
		})
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("Exits.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "test server: crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	return s
}

// hangUp is a stdio server that stops listening: it reads the client's first message, closes
// its stdin, and then asks the client something, so the client's answer cannot be delivered.
func hangUp() {
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		os.Exit(1)
	}
	if err := os.Stdin.Close(); err != nil {
		os.Exit(1)
	}
	if _, err := fmt.Println(`{"jsonrpc":"2.0","id":"hangup-1","method":"ping"}`); err != nil {
		os.Exit(1)
	}
}

// testServerEntry runs this test binary as an MCP server.
func testServerEntry() map[string]any {
	return map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"},
		"env": map[string]string{"CAIRN_MCP_TEST_SERVER": "1"}}
}

// npmBin returns a server installed by the root package.json (npm ci), or skips. On Windows npm
// writes NAME.cmd launchers; a node_modules installed on Linux (the Wine run) has none.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	if runtime.GOOS == "windows" {
		name += ".cmd"
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed: run `npm ci` in the repository root (%v)", name, err)
	}
	return p
}

func writeSettings(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// startHub starts a hub over a settings file with fast retries.
func startHub(t *testing.T, servers map[string]any) (*Hub, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	if servers != nil {
		writeSettings(t, path, servers)
	}
	h := New(Options{SettingsPath: path, ClientVersion: "test", RetryBase: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond})
	h.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return h, path
}

// waitFor waits for the hub to reach a state (on change signals, not on time); the test's
// own deadline bounds it.
func waitState(t *testing.T, h *Hub, what string, ok func([]Server) bool) []Server {
	t.Helper()
	ch, cancel := h.Subscribe()
	defer cancel()
	deadline := time.NewTimer(90 * time.Second)
	defer deadline.Stop()
	for {
		s := h.Servers()
		if ok(s) {
			return s
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("waiting for %s; servers: %s", what, describe(s))
		}
	}
}

func describe(ss []Server) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "\n  %s: %s %q tools=%d stderr=%q", s.Name, s.Status, s.Error, len(s.Tools), s.Stderr)
	}
	return b.String()
}

func find(ss []Server, name string) Server {
	for _, s := range ss {
		if s.Name == name {
			return s
		}
	}
	return Server{}
}

func status(name string, want Status) func([]Server) bool {
	return func(ss []Server) bool { return find(ss, name).Status == want }
}

func hasTool(s Server, name string) bool {
	for _, t := range s.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// startProcess runs a server as a plain child process for the test's lifetime.
func startProcess(t *testing.T, bin string, args []string, env ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cmd.Process.Kill(); err != nil {
			t.Log(err)
		}
		_ = cmd.Wait() // killed: the exit status is expected to be an error
	})
}
