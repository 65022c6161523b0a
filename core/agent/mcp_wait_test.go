package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task"
)

// TestMain turns the test binary into a small stdio MCP server when CAIRN_AGENT_TEST_MCP says
// so: "slow" serves two tools after a pause of $CAIRN_AGENT_TEST_DELAY (a server that takes
// its time to start), "silent" reads its input and never answers.
func TestMain(m *testing.M) {
	switch os.Getenv("CAIRN_AGENT_TEST_MCP") {
	case "slow":
		d, err := time.ParseDuration(os.Getenv("CAIRN_AGENT_TEST_DELAY"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		time.Sleep(d)
		s := server.NewMCPServer("slow-test", "1.0.0", server.WithToolCapabilities(true))
		for _, name := range []string{"weigh", "count"} {
			s.AddTool(mcpgo.NewTool(name, mcpgo.WithDescription("The "+name+" tool of the slow server."),
				mcpgo.WithString("what", mcpgo.Required())),
				func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText(name), nil
				})
		}
		if err := server.ServeStdio(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	case "silent":
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return
			}
		}
	}
	os.Exit(m.Run())
}

func slowServer(delay string) map[string]any {
	return map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"},
		"env": map[string]string{"CAIRN_AGENT_TEST_MCP": "slow", "CAIRN_AGENT_TEST_DELAY": delay}}
}

func silentServer(timeout int) map[string]any {
	return map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"}, "timeout": timeout,
		"env": map[string]string{"CAIRN_AGENT_TEST_MCP": "silent"}}
}

// startedHub starts a hub over the given servers, as the daemon does when it starts, and
// returns at once: the servers are still connecting.
func startedHub(t *testing.T, servers map[string]any, retry time.Duration) *mcp.Hub {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := mcp.New(mcp.Options{SettingsPath: path, NoWatch: true, RetryBase: retry, RetryMax: retry})
	h.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return h
}

// mcpRig is a daemon's worth of agent with an MCP hub around the fake model.
type mcpRig struct {
	root string
	llm  *llmtest.Server
	mgr  *task.Manager
}

func newMCPRig(t *testing.T, hub *mcp.Hub, script llmtest.Script) *mcpRig {
	t.Helper()
	r := &mcpRig{root: t.TempDir(), llm: llmtest.New(t, script)}
	write(t, filepath.Join(r.root, "a.txt"), "contents of a\n")
	env := newEnv()
	env.set(func(s *config.Settings) {
		s.API.BaseURL = r.llm.URL()
		s.CheckpointsEnabled = false
		s.AutoApprove = config.AutoApprove{}
		readsOn(&s.AutoApprove)
	})
	a := New(env, Config{MCP: hub, GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	r.mgr = task.NewManager(nil, a.Deps)
	t.Cleanup(func() { r.mgr.CloseAll(context.Background()) })
	return r
}

// waitCompleted waits until the task asks the user about its completion.
func waitCompleted(t *testing.T, tk *task.Task) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for tk.OpenAsk() != msg.AskCompletionResult {
		if time.Now().After(deadline) {
			for _, m := range tk.Messages() {
				t.Logf("%s %s %q", m.Type, m.Kind, m.Text)
			}
			t.Fatal("the task did not complete")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mcpSection is the MCP SERVERS section of a system prompt ("" when it has none).
func mcpSection(system string) string {
	i := strings.Index(system, "MCP SERVERS\n")
	if i < 0 {
		return ""
	}
	rest := system[i:]
	if j := strings.Index(rest, "\n\n====\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func systemPrompts(t *testing.T, reqs []llmtest.Request) []string {
	t.Helper()
	var out []string
	for _, r := range reqs {
		if len(r.Messages) == 0 || r.Messages[0].Role != "system" {
			t.Fatalf("a request without a system prompt: %+v", r.Messages)
		}
		out = append(out, r.Messages[0].Text)
	}
	return out
}

// A server that takes 1.5 s to answer its handshake is in the task's FIRST request with its
// tools (the request waits for it), and the MCP section of the second request is byte for
// byte the one of the first.
func TestFirstRequestWaitsForAConnectingServer(t *testing.T) {
	hub := startedHub(t, map[string]any{"slow": slowServer("1500ms")}, 2*time.Second)
	r := newMCPRig(t, hub, llmtest.Script{Turns: []llmtest.Turn{
		{Text: readFile("a.txt"), Expect: &llmtest.Expect{Contains: []string{
			"MCP SERVERS", "## slow", "- count: The count tool of the slow server.", "- weigh: The weigh tool of the slow server.",
			`"what"`}}},
		{Text: completion("read it")},
	}})
	if s, err := hub.Server("slow"); err != nil || s.Status != mcp.StatusConnecting {
		t.Fatalf("the server should still be connecting when the task starts: %+v %v", s, err)
	}
	tk, err := r.mgr.New(context.Background(), task.Options{Workspace: []string{r.root}}, "read a.txt", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitCompleted(t, tk)
	prompts := systemPrompts(t, r.llm.Requests())
	if len(prompts) != 2 {
		t.Fatalf("%d requests", len(prompts))
	}
	first, second := mcpSection(prompts[0]), mcpSection(prompts[1])
	if !strings.Contains(first, "## slow") {
		t.Fatalf("the first request has no MCP section with the server:\n%s", first)
	}
	if first != second {
		t.Errorf("the MCP section changed between requests:\n--- first\n%s\n--- second\n%s", first, second)
	}
	// Tools are listed sorted by name, whatever order the server gave.
	if strings.Index(first, "- count:") > strings.Index(first, "- weigh:") {
		t.Errorf("tools are not sorted:\n%s", first)
	}
}

// A server that never answers delays the first request by its own timeout (1 s here, not
// the default minute), after which the prompt lists it as not connected; while it goes on
// failing and retrying, the section does not change between a retry and the pause before
// the next one.
func TestNeverConnectingServerDelaysOnlyUpToItsTimeout(t *testing.T) {
	hub := startedHub(t, map[string]any{"silent": silentServer(1)}, 700*time.Millisecond)
	r := newMCPRig(t, hub, llmtest.Script{Turns: []llmtest.Turn{
		{Text: completion("nothing to do"), Expect: &llmtest.Expect{Contains: []string{
			"MCP SERVERS", "(No MCP server is connected right now.)", "unusable for now: silent."}}},
	}})
	tk, err := r.mgr.New(context.Background(), task.Options{Workspace: []string{r.root}}, "hello", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitCompleted(t, tk)
	// From the task's row to its first request: the server's timeout, not the default minute.
	var posted, requested time.Time
	for _, m := range tk.Messages() {
		switch {
		case m.Kind == msg.SayTask && posted.IsZero():
			posted = m.Time
		case m.Kind == msg.SayAPIReqStarted && requested.IsZero():
			requested = m.Time
		}
	}
	// At least half the timeout (it did wait: without the wait the request leaves at once;
	// under Wine the silent server's start eats into the second), at most a few seconds.
	if took := requested.Sub(posted); took < 500*time.Millisecond || took > 6*time.Second {
		t.Errorf("the first request of a task with a server of 1 s timeout left after %v", took)
	}
	if n := len(r.llm.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}

	// The section as the prompt shows it while the server is retrying, then while it waits
	// to retry: the same text.
	a := New(newEnv(), Config{MCP: hub, GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{r.root}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Turns.Close(); err != nil {
			t.Error(err)
		}
	}()
	sections := map[mcp.Status]string{}
	changes, cancel := hub.Subscribe()
	defer cancel()
	deadline := time.After(30 * time.Second)
	for len(sections) < 2 {
		s, err := hub.Server("silent")
		if err != nil {
			t.Fatal(err)
		}
		if s.Error != "" && (s.Status == mcp.StatusConnecting || s.Status == mcp.StatusDisconnected) {
			if _, seen := sections[s.Status]; !seen {
				sections[s.Status] = mcpSection(d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil))
			}
		}
		select {
		case <-changes:
		case <-deadline:
			t.Fatalf("the server was not seen retrying: %+v", s)
		}
	}
	if sections[mcp.StatusConnecting] != sections[mcp.StatusDisconnected] {
		t.Errorf("the section follows the retries:\n--- connecting\n%s\n--- disconnected\n%s",
			sections[mcp.StatusConnecting], sections[mcp.StatusDisconnected])
	}
}

// A task cancelled while its first request waits for a server stops at once, without a
// request; the wait is not counted as done, so the next run's first request waits again.
func TestCancelDuringTheWaitForServers(t *testing.T) {
	hub := startedHub(t, map[string]any{"silent": silentServer(60)}, time.Minute)
	r := newMCPRig(t, hub, llmtest.Script{Turns: []llmtest.Turn{{Text: completion("never asked")}}})
	tk, err := r.mgr.New(context.Background(), task.Options{Workspace: []string{r.root}}, "hello", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the run is in its first turn, waiting
	start := time.Now()
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the cancel took %v", took)
	}
	if n := len(r.llm.Requests()); n != 0 {
		t.Errorf("%d requests went out during the wait", n)
	}
}
