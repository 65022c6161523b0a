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
