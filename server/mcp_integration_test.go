package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// everythingBin is the everything MCP server installed by the root package.json.
func everythingBin(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the everything MCP server is not installed: run `npm ci` in the repository root (%v)", err)
	}
	return bin
}

func mcpDataDir(t *testing.T, servers map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp_settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitMcp follows WatchMcpServers until cond holds.
func waitMcp(t *testing.T, e *servertest.Env, what string, cond func(*cairnv1.WatchMcpServersResponse) bool) *cairnv1.WatchMcpServersResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*servertest.Timeout)
	defer cancel()
	stream, err := e.MCP.WatchMcpServers(ctx, &cairnv1.WatchMcpServersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		r, err := stream.Recv()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if cond(r) {
			return r
		}
	}
}

func mcpServer(r interface{ GetServers() []*cairnv1.McpServer }, name string) *cairnv1.McpServer {
	for _, s := range r.GetServers() {
		if s.GetName() == name {
			return s
		}
	}
	return nil
}

const callEcho = "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>echo</tool_name>\n<arguments>{\"message\": \"from the model\"}</arguments>\n</use_mcp_tool>"

// A task calls the everything server's echo tool: the first call is asked (server, tool and
// arguments in the ask), the result reaches the model; once the user ticks the tool's
// auto-approve box (and MCP auto-approval is on), the next call runs without asking. The MCP
// view's RPCs list, change and stream the servers.
func TestMCPThroughTheDaemon(t *testing.T) {
	bin := everythingBin(t)
	dir := mcpDataDir(t, map[string]any{
		"everything": map[string]any{"command": bin, "args": []string{"stdio"}},
		"broken":     map[string]any{"type": "stdio"},
	})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: callEcho, Expect: &llmtest.Expect{Contains: []string{"MCP SERVERS", "## everything", "- echo: Echoes back the input string"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[use_mcp_tool for 'everything'] Result:", "Echo: from the model"}}},
		{Text: callEcho},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"Echo: from the model"}}},
	}}, servertest.Options{DataDir: dir, Settings: func(s *config.Settings) { s.AutoApprove.MCP = true }})
	ctx := context.Background()

	r := waitMcp(t, e, "everything connected", func(r *cairnv1.WatchMcpServersResponse) bool {
		return mcpServer(r, "everything").GetStatus() == cairnv1.McpServerStatus_MCP_SERVER_STATUS_CONNECTED
	})
	if b := mcpServer(r, "broken"); b.GetStatus() != cairnv1.McpServerStatus_MCP_SERVER_STATUS_DISCONNECTED || !strings.Contains(b.GetError(), "command") {
		t.Errorf("broken entry: %v", b)
	}
	ev := mcpServer(r, "everything")
	if ev.GetTransport() != "stdio" || len(ev.GetTools()) == 0 || len(ev.GetResourceTemplates()) == 0 || ev.GetTimeoutSeconds() != 60 {
		t.Errorf("everything: transport %q tools %d templates %d timeout %d", ev.GetTransport(), len(ev.GetTools()), len(ev.GetResourceTemplates()), ev.GetTimeoutSeconds())
	}

	slash, err := e.Files.ListSlashCommands(ctx, &cairnv1.ListSlashCommandsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var sawPrompt bool
	for _, c := range slash.GetCommands() {
		sawPrompt = sawPrompt || c.GetName() == "mcp:everything:simple-prompt"
	}
	if !sawPrompt {
		t.Errorf("the / menu lacks the MCP prompt: %v", slash.GetCommands())
	}

	// First call: asked.
	id := e.NewTask("echo something", "", act)
	w := e.Watch(id)
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER)
	if p := ask.GetMcp(); p.GetServerName() != "everything" || p.GetToolName() != "echo" || !strings.Contains(p.GetArguments(), "from the model") {
		t.Fatalf("ask payload: %v", ask)
	}
	e.Answer(id, cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if len(servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_MCP_SERVER_RESPONSE)) != 1 {
		t.Error("no mcp_server_response row")
	}

	// The user ticks auto-approve for echo: the next call is not asked.
	if _, err := e.MCP.SetMcpToolAutoApprove(ctx, &cairnv1.SetMcpToolAutoApproveRequest{Server: "everything", Tool: "echo", AutoApprove: true}); err != nil {
		t.Fatal(err)
	}
	list, err := e.MCP.ListMcpServers(ctx, &cairnv1.ListMcpServersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range mcpServer(list, "everything").GetTools() {
		if (tool.GetName() == "echo") != tool.GetAutoApprove() {
			t.Errorf("tool %s auto-approve %v", tool.GetName(), tool.GetAutoApprove())
		}
	}
	id2 := e.NewTask("echo again", "", act)
	w2 := e.Watch(id2)
	w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	for _, m := range w2.Messages() {
		if m.GetAsk() == cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER {
			t.Fatal("an auto-approved tool was asked")
		}
	}
	if len(servertest.Find(w2.Messages(), cairnv1.SayKind_SAY_KIND_MCP_SERVER_REQUEST_STARTED)) != 1 {
		t.Error("the auto-approved call has no request row")
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}

	// Management RPCs.
	if _, err := e.MCP.ToggleMcpServer(ctx, &cairnv1.ToggleMcpServerRequest{Name: "everything", Disabled: true}); err != nil {
		t.Fatal(err)
	}
	waitMcp(t, e, "everything disabled", func(r *cairnv1.WatchMcpServersResponse) bool {
		return mcpServer(r, "everything").GetStatus() == cairnv1.McpServerStatus_MCP_SERVER_STATUS_DISABLED
	})
	if _, err := e.MCP.AddRemoteMcpServer(ctx, &cairnv1.AddRemoteMcpServerRequest{Name: "web", Url: "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.MCP.SetMcpServerTimeout(ctx, &cairnv1.SetMcpServerTimeoutRequest{Name: "web", TimeoutSeconds: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.MCP.DeleteMcpServer(ctx, &cairnv1.DeleteMcpServerRequest{Name: "broken"}); err != nil {
		t.Fatal(err)
	}
	list, err = e.MCP.ListMcpServers(ctx, &cairnv1.ListMcpServersRequest{})
	if err != nil || mcpServer(list, "broken") != nil || mcpServer(list, "web").GetTimeoutSeconds() != 5 || !strings.HasSuffix(list.GetSettingsPath(), "mcp_settings.json") {
		t.Fatalf("after edits: %v %v", list, err)
	}
	for name, tc := range map[string]struct {
		err  error
		code codes.Code
	}{
		"restart unknown": {errOf(e.MCP.RestartMcpServer(ctx, &cairnv1.RestartMcpServerRequest{Name: "nope"})), codes.NotFound},
		"no name":         {errOf(e.MCP.DeleteMcpServer(ctx, &cairnv1.DeleteMcpServerRequest{})), codes.InvalidArgument},
		"bad timeout":     {errOf(e.MCP.SetMcpServerTimeout(ctx, &cairnv1.SetMcpServerTimeoutRequest{Name: "web"})), codes.InvalidArgument},
		"duplicate":       {errOf(e.MCP.AddRemoteMcpServer(ctx, &cairnv1.AddRemoteMcpServerRequest{Name: "web", Url: "http://x"})), codes.InvalidArgument},
		"relative import": {errOf(e.MCP.ImportMcpSettings(ctx, &cairnv1.ImportMcpSettingsRequest{Path: "x.json"})), codes.InvalidArgument},
	} {
		if status.Code(tc.err) != tc.code {
			t.Errorf("%s: %v, want %v", name, tc.err, tc.code)
		}
	}
}

func errOf[T any](_ T, err error) error { return err }
