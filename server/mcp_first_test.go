package server_test

import (
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// A task started the moment the daemon is up, before the everything server has answered its
// handshake, has the server and its tools in its FIRST request's system prompt, and its
// second request carries the same MCP section byte for byte.
func TestMCPToolsInTheFirstRequest(t *testing.T) {
	bin := everythingBin(t)
	dir := mcpDataDir(t, map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Let me look around first.", Expect: &llmtest.Expect{Contains: []string{"MCP SERVERS", "## everything",
			"- echo: Echoes back the input string"}}},
		{Text: complete},
	}}, servertest.Options{DataDir: dir})
	id := e.NewTask("what can the everything server do?", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	reqs := e.LLM.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	section := func(r llmtest.Request) string {
		system := r.Messages[0].Text
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
	first, second := section(reqs[0]), section(reqs[1])
	if !strings.Contains(first, "## everything") {
		t.Fatalf("the first request lacks the server: %q", first)
	}
	if first != second {
		t.Errorf("the MCP section changed between the two requests:\n--- first\n%s\n--- second\n%s", first, second)
	}
}
