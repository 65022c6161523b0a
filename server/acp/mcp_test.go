package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// everythingBin is the everything MCP server the root package.json installs.
func everythingBin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the everything MCP server is not installed: run `npm ci` in the repository root (%v)", err)
	}
	return bin
}

const callEcho = "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>echo</tool_name>\n<arguments>{\"message\": \"from the model\"}</arguments>\n</use_mcp_tool>"

// "Allow always" for an MCP tool holds for the rest of the session: the second call of the
// same tool runs without a permission request. The user's MCP settings file (where a tool's
// autoApprove list lives) and the shared approval settings do not change.
func TestAllowAlwaysForAnMCPTool(t *testing.T) {
	bin := everythingBin(t)
	dir := t.TempDir()
	settings, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mcp_settings.json")
	if err := os.WriteFile(path, settings, 0o600); err != nil {
		t.Fatal(err)
	}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: callEcho},
		{Text: callEcho, Expect: &llmtest.Expect{LastUserContains: []string{"Echo: from the model"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"Echo: from the model"}}},
	}}, servertest.Options{DataDir: dir})
	h := connect(t, e, "allow_always")
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	if r := h.prompt(t, sdk.TextBlock("echo twice")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	_, asks := h.ed.snapshot()
	if len(asks) != 1 {
		t.Fatalf("%d permission requests, want 1 (the second call is allowed always)", len(asks))
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(settings) {
		t.Errorf("the MCP settings changed: %s, %v", b, err)
	}
	st, err := e.State.GetState(context.Background(), &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetSettings().GetAutoApprove().GetMcp() {
		t.Error("allow always changed the shared settings")
	}
	h.llmOK(t)
}

// The client's MCP servers (session/new's mcpServers) join the user's for that session's task
// only: its model sees and calls them; the daemon's own servers, the MCP settings file and a
// second session without them are untouched.
func TestClientMCPServersJoinForTheSession(t *testing.T) {
	bin := everythingBin(t)
	dir := t.TempDir()
	const call = "<use_mcp_tool>\n<server_name>editor-tools</server_name>\n<tool_name>echo</tool_name>\n<arguments>{\"message\": \"from the model\"}</arguments>\n</use_mcp_tool>"
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: call, Expect: &llmtest.Expect{Contains: []string{"## editor-tools", "- echo:"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[use_mcp_tool for 'editor-tools'] Result:", "Echo: from the model"}}},
		{Text: complete, Expect: &llmtest.Expect{NotContains: []string{"editor-tools"}}},
	}}, servertest.Options{DataDir: dir})
	h := connect(t, e, "allow_once")
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "editor-tools", Command: bin, Args: []string{"stdio"}, Env: []sdk.EnvVariable{{Name: "EDITOR_TOKEN", Value: "t0k"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	if r := h.prompt(t, sdk.TextBlock("use the editor's tools")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	list, err := e.MCP.ListMcpServers(context.Background(), &cairnv1.ListMcpServersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.GetServers()) != 0 {
		t.Errorf("the daemon's MCP servers changed: %v", list.GetServers())
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp_settings.json")); !os.IsNotExist(err) {
		t.Errorf("an MCP settings file was written: %v", err)
	}
	// Another session of the same connection, without servers of its own, does not see them.
	s2, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s2.SessionId
	if r := h.prompt(t, sdk.TextBlock("anything else?")); r != sdk.StopReasonEndTurn {
		t.Fatalf("second session's turn ended with %q", r)
	}
	h.llmOK(t)
}
