package task

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/parse"
)

// The stream reader alone (stream.go): a real stream from the fake model, no task.

// openStream streams turn from a fake model through the OpenAI client.
func openStream(t *testing.T, turn llmtest.Turn) llm.Stream {
	t.Helper()
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{turn}})
	p := openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "k"})
	s, err := p.Stream(context.Background(), llm.Request{Model: "fake",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("go")}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Logf("closing the stream: %v", err)
		}
	})
	return s
}

// watched is a stream reader whose callbacks record what they were given.
type watched struct {
	*streamReader
	shown     [][]parse.Block
	afterDone int // onBlocks calls after onToolDone
	done      int
	reasoning []string
}

func watch(native bool) *watched {
	w := &watched{streamReader: newStreamReader(native, parse.DefaultGrammar())}
	w.onBlocks = func(b []parse.Block) {
		w.shown = append(w.shown, b)
		if w.done > 0 {
			w.afterDone++
		}
	}
	w.onToolDone = func() { w.done++ }
	w.onReasoning = func(all string) { w.reasoning = append(w.reasoning, all) }
	return w
}

func TestStreamReaderXMLToolCall(t *testing.T) {
	read := "<read_file>\n<path>a.go</path>\n</read_file>"
	s := openStream(t, llmtest.Turn{Text: "Reading it.\n" + read + "\nAnd then.\n<read_file>\n<path>b.go</path>\n</read_file>",
		ChunkSize: 5, Usage: &llmtest.Usage{PromptTokens: 120, CompletionTokens: 30}})
	w := watch(false)
	res := w.read(s)
	if err := res.failure(); err != nil {
		t.Fatalf("failure: %v", err)
	}
	r := res.reply
	if r.tool == nil || r.tool.Name != "read_file" || r.tool.Params["path"] != "a.go" || r.cut != nil {
		t.Fatalf("reply tool %+v cut %+v, want read_file a.go", r.tool, r.cut)
	}
	if !r.extraTools {
		t.Error("the second call was not noticed")
	}
	if strings.Contains(r.text, "b.go") || !strings.Contains(r.text, "Reading it.") {
		t.Errorf("recorded text %q: want the text and the first call only", r.text)
	}
	if !res.gotUsage || res.usage.InputTokens != 120 || res.usage.OutputTokens != 30 {
		t.Errorf("usage %+v (reported %v), want 120 in, 30 out", res.usage, res.gotUsage)
	}
	if w.done != 1 || w.afterDone != 0 {
		t.Errorf("onToolDone called %d times, blocks shown %d times after it; want once and none", w.done, w.afterDone)
	}
	if len(w.shown) < 2 {
		t.Errorf("blocks shown %d times, want them shown as they arrived", len(w.shown))
	}
	if !res.received || res.finish != llm.FinishStop {
		t.Errorf("received %v, finish %q", res.received, res.finish)
	}
}

func TestStreamReaderCutOffAtOutputLimit(t *testing.T) {
	s := openStream(t, llmtest.Turn{Text: "Writing.\n<write_to_file>\n<path>a.go</path>\n<content>package a",
		ChunkSize: 7, FinishReason: "length"})
	w := watch(false)
	res := w.read(s)
	if err := res.failure(); err != nil {
		t.Fatalf("failure: %v", err)
	}
	if res.reply.tool != nil || res.reply.cut == nil || res.reply.cut.Name != "write_to_file" {
		t.Fatalf("tool %+v cut %+v, want the write cut off", res.reply.tool, res.reply.cut)
	}
	if !res.reply.limitHit() || w.done != 0 {
		t.Errorf("limit hit %v, onToolDone %d: want the limit and no complete call", res.reply.limitHit(), w.done)
	}
	if !strings.Contains(res.interrupted, "package a") {
		t.Errorf("interrupted text %q does not keep what was said", res.interrupted)
	}
}

func TestStreamReaderNativeCalls(t *testing.T) {
	s := openStream(t, llmtest.Turn{Text: "Looking.", ChunkSize: 4, ToolCalls: []llmtest.ToolCall{
		{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "c2", Name: "list_files", Arguments: `{"path":"."}`},
	}})
	w := watch(true)
	res := w.read(s)
	if err := res.failure(); err != nil {
		t.Fatalf("failure: %v", err)
	}
	r := res.reply
	if !r.native || r.tool == nil || r.tool.Name != "read_file" || r.tool.Params["path"] != "a.go" {
		t.Fatalf("reply %+v, want the native read_file call", r)
	}
	if len(r.calls) != 2 || r.calls[0].ID != "c1" || !r.extraTools {
		t.Errorf("calls %+v extra %v, want both calls recorded and the second noticed", r.calls, r.extraTools)
	}
	if r.text != "Looking." || !strings.HasPrefix(res.interrupted, "Looking.") {
		t.Errorf("text %q, interrupted %q", r.text, res.interrupted)
	}
	if w.done != 1 {
		t.Errorf("onToolDone called %d times, want once", w.done)
	}
}

func TestStreamReaderBrokenStream(t *testing.T) {
	s := openStream(t, llmtest.Turn{Text: "A long answer that breaks off halfway through.", ChunkSize: 6,
		Fault: &llmtest.Fault{At: 12, Cut: true}})
	res := watch(false).read(s)
	if res.err == nil || !errors.Is(res.failure(), res.err) {
		t.Fatalf("err %v, failure %v: want the broken stream's error", res.err, res.failure())
	}
	if !res.received {
		t.Error("the text before the break was not counted as received")
	}
}

func TestStreamReaderErrorWhileDrainingIsNoFailure(t *testing.T) {
	read := "<read_file>\n<path>a.go</path>\n</read_file>"
	s := openStream(t, llmtest.Turn{Text: read + "\nand some more text after the call", ChunkSize: 8,
		Fault: &llmtest.Fault{At: len(read) + 16, Cut: true}})
	res := watch(false).read(s)
	if err := res.failure(); err != nil {
		t.Fatalf("failure %v: the call was complete before the stream broke", err)
	}
	if res.reply.tool == nil || res.reply.tool.Params["path"] != "a.go" {
		t.Fatalf("tool %+v, want read_file a.go", res.reply.tool)
	}
}

func TestStreamReaderEmptyResponse(t *testing.T) {
	s := openStream(t, llmtest.Turn{Reasoning: "Let me think."})
	w := watch(false)
	res := w.read(s)
	if !errors.Is(res.failure(), errEmptyResponse) {
		t.Fatalf("failure %v, want the empty response error", res.failure())
	}
	if res.received || res.reasoning != "Let me think." || len(w.reasoning) == 0 || w.reasoning[len(w.reasoning)-1] != "Let me think." {
		t.Errorf("received %v, reasoning %q, shown %q: reasoning alone is not a reply but is shown whole",
			res.received, res.reasoning, w.reasoning)
	}
	if len(w.shown) != 0 {
		t.Errorf("blocks shown %d times for an empty reply", len(w.shown))
	}
}
