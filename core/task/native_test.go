package task

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/tools/edit"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/window"
)

var nativeModel = llm.ModelInfo{ContextWindow: 128_000, ToolFormat: llm.ToolFormatNative}

func args(t *testing.T, kv ...string) string {
	t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func completionCall(t *testing.T) llmtest.Turn {
	return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{Name: "attempt_completion", Arguments: args(t, "result", "Done.")}}}
}

func nativeRig(t *testing.T, turns ...llmtest.Turn) *rig {
	t.Helper()
	r := newRig(t, llmtest.Script{Turns: turns}, readfile.New(), edit.NewWrite(), edit.NewReplace())
	r.info = nativeModel
	r.settings = func(s *config.Settings) { s.AutoApprove.Enabled, s.AutoApprove.YOLO = true, true }
	return r
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkWirePaired checks a recorded request the way the API does: every assistant tool call
// is answered by a tool message right after it, and every tool message answers a call.
func checkWirePaired(t *testing.T, req llmtest.Request) {
	t.Helper()
	for i := 0; i < len(req.Messages); i++ {
		m := req.Messages[i]
		if m.Role == "tool" {
			t.Fatalf("request %d: tool message %d (%s) answers no call", req.Turn, i, m.ToolCallID)
		}
		for j, call := range m.ToolCalls {
			k := i + 1 + j
			if k >= len(req.Messages) || req.Messages[k].Role != "tool" || req.Messages[k].ToolCallID != call.ID {
				t.Fatalf("request %d: call %s of message %d is not answered right after it", req.Turn, call.ID, i)
			}
		}
		i += len(m.ToolCalls)
	}
}

// A native task reads a file, edits it and completes: the calls' arguments stream in pieces,
// each result answers its call by id, and the tools are offered as functions.
func TestNativeReadEditComplete(t *testing.T) {
	diff := "------- SEARCH\nhello\n=======\nhello, world\n+++++++ REPLACE\n"
	r := nativeRig(t,
		llmtest.Turn{Text: "Reading it first.", ToolCalls: []llmtest.ToolCall{{ID: "call_read", Name: "read_file", Arguments: args(t, "path", "greet.txt")}}, ChunkSize: 5},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_edit", Name: "replace_in_file", Arguments: args(t, "path", "greet.txt", "diff", diff)}}, ChunkSize: 7},
		completionCall(t),
	)
	path := filepath.Join(r.root, "greet.txt")
	writeFile(t, path, "hello\nbye\n")
	tk := r.newTask("greet the world")
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := r.llm.Err(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "hello, world\nbye\n" {
		t.Fatalf("file = %q", got)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if got := strings.Join(reqs[0].Tools, ","); !strings.Contains(got, "read_file") || !strings.Contains(got, "replace_in_file") || !strings.Contains(got, "attempt_completion") {
		t.Errorf("tools offered: %s", got)
	}
	for _, req := range reqs {
		checkWirePaired(t, req)
	}
	last := reqs[2].Messages
	// task, assistant(read), tool, assistant(edit), tool
	var tools []llmtest.Message
	for _, m := range last {
		if m.Role == "tool" {
			tools = append(tools, m)
		}
	}
	if len(tools) != 2 || tools[0].ToolCallID != "call_read" || !strings.Contains(tools[0].Text, "[read_file for 'greet.txt'] Result:") ||
		!strings.Contains(tools[0].Text, "hello") || tools[1].ToolCallID != "call_edit" || !strings.Contains(tools[1].Text, "replace_in_file") {
		t.Errorf("tool results: %+v", tools)
	}
	if last[1].Role != "assistant" || last[1].Text != "Reading it first." || len(last[1].ToolCalls) != 1 || last[1].ToolCalls[0].Arguments != `{"path":"greet.txt"}` {
		t.Errorf("replayed assistant message: %+v", last[1])
	}
}

// A native call whose arguments were cut off never runs, whether the reply hit the output
// limit or just ended: the file stays byte-identical and the model hears why.
func TestNativeCutOffCallNotRun(t *testing.T) {
	for _, finish := range []string{"length", "stop"} {
		t.Run(finish, func(t *testing.T) {
			r := nativeRig(t,
				llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_w", Name: "write_to_file", Arguments: `{"path":"keep.txt","content":"replaced\nby a long`}},
					ChunkSize: 6, FinishReason: finish},
				completionCall(t),
			)
			path := filepath.Join(r.root, "keep.txt")
			original := "original\r\ncontent\x00\n"
			writeFile(t, path, original)
			tk := r.newTask("rewrite keep.txt")
			waitAsk(t, tk, msg.AskCompletionResult)
			if got := readFile(t, path); got != original {
				t.Fatalf("the cut-off call changed the file: %q", got)
			}
			reqs := r.llm.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			checkWirePaired(t, reqs[1])
			msgs := reqs[1].Messages
			asst := msgs[len(msgs)-2]
			if asst.Role != "assistant" || len(asst.ToolCalls) != 0 || !strings.Contains(asst.Text, prompt.CutCall("write_to_file")) {
				t.Errorf("recorded reply: %+v", asst)
			}
			if want := prompt.CutOff("write_to_file", finish == "length"); !strings.Contains(reqs[1].LastUser(), want[:40]) {
				t.Errorf("the model was not told: %q", reqs[1].LastUser())
			}
			cutRow := false
			for _, m := range tk.Messages() {
				cutRow = cutRow || m.Kind == msg.SayError && strings.Contains(m.Text, "write_to_file")
			}
			if !cutRow {
				t.Error("no chat row says the call was not run")
			}
		})
	}
}

// Parallel calls: only the first runs; the second is answered as not run.
func TestNativeExtraParallelCallNotRun(t *testing.T) {
	r := nativeRig(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: args(t, "path", "a.txt")},
			{ID: "call_2", Name: "write_to_file", Arguments: args(t, "path", "b.txt", "content", "should not exist\n")},
		}, ChunkSize: 4},
		completionCall(t),
	)
	writeFile(t, filepath.Join(r.root, "a.txt"), "alpha\n")
	tk := r.newTask("read a")
	waitAsk(t, tk, msg.AskCompletionResult)
	if _, err := os.Stat(filepath.Join(r.root, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the second call ran: %v", err)
	}
	reqs := r.llm.Requests()
	checkWirePaired(t, reqs[1])
	msgs := reqs[1].Messages
	n := len(msgs)
	// … assistant(2 calls), tool(call_1), tool(call_2)
	asst, first, second := msgs[n-3], msgs[n-2], msgs[n-1]
	if len(asst.ToolCalls) != 2 || first.ToolCallID != "call_1" || !strings.Contains(first.Text, "alpha") ||
		second.ToolCallID != "call_2" || second.Text != prompt.NotRun() {
		t.Errorf("replay: %+v / %+v / %+v", asst, first, second)
	}
}

// pairingTurns fits the history into a small window the way the agent does, so a long task is
// truncated.
type pairingTurns struct {
	bareTurns
	fit *window.State
}

func (p pairingTurns) Project(h []llm.Message, last int64, _ int) []llm.Message {
	return window.Project(h, p.fit, last, 64_000)
}

// A native task stopped while a call waits for approval, reopened from disk and resumed,
// replays its calls paired with results; so does a long task truncated to fit the window.
func TestNativeHistoryReplayAfterResumeAndTruncation(t *testing.T) {
	t.Run("resume", func(t *testing.T) {
		r := nativeRig(t,
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_r", Name: "read_file", Arguments: args(t, "path", "a.txt")}}},
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_w", Name: "write_to_file", Arguments: args(t, "path", "a.txt", "content", "new\n")}}},
			completionCall(t),
		)
		r.settings = func(s *config.Settings) { s.AutoApprove.Enabled, s.AutoApprove.ReadFiles = true, true }
		writeFile(t, filepath.Join(r.root, "a.txt"), "old\n")
		tk := r.newTask("change a")
		waitAsk(t, tk, msg.AskTool) // the write waits for approval
		id := tk.ID()
		r.mgr.Clear(context.Background(), id)
		again, err := r.mgr.Open(context.Background(), id, "")
		if err != nil {
			t.Fatal(err)
		}
		waitAsk(t, again, msg.AskResumeTask)
		if _, err := again.Continue("go on without writing", nil); err != nil {
			t.Fatal(err)
		}
		waitAsk(t, again, msg.AskCompletionResult)
		reqs := r.llm.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		checkWirePaired(t, reqs[2])
		var ids []string
		for _, m := range reqs[2].Messages {
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			if m.ToolCallID == "call_w" && m.Text != prompt.NoResult() {
				t.Errorf("the interrupted call's result: %q", m.Text)
			}
		}
		if strings.Join(ids, ",") != "call_r,call_w" {
			t.Errorf("replayed calls %v", ids)
		}
		if got := readFile(t, filepath.Join(r.root, "a.txt")); got != "old\n" {
			t.Errorf("file = %q", got)
		}
	})
	t.Run("truncation", func(t *testing.T) {
		var turns []llmtest.Turn
		const files = 10
		for i := range files {
			turns = append(turns, llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file",
				Arguments: args(t, "path", fmt.Sprintf("f%d.txt", i))}}})
		}
		turns = append(turns, completionCall(t))
		r := nativeRig(t, turns...)
		r.turns = func() Turns { return pairingTurns{fit: &window.State{}} }
		for i := range files {
			writeFile(t, filepath.Join(r.root, fmt.Sprintf("f%d.txt", i)), strings.Repeat(fmt.Sprintf("line of file %d\n", i), 2500))
		}
		tk := r.newTask("read all the files")
		waitAsk(t, tk, msg.AskCompletionResult)
		reqs := r.llm.Requests()
		truncated := false
		for i, req := range reqs {
			checkWirePaired(t, req)
			calls := 0
			for _, m := range req.Messages {
				calls += len(m.ToolCalls)
			}
			truncated = truncated || calls < i
		}
		if !truncated {
			t.Fatal("no request was truncated; the test proves nothing")
		}
	})
}

// The native reader yields the same blocks the XML parser does while a call streams: the
// content parameter grows with every piece, so previews fill the diff view as it arrives.
func TestNativeReaderStreamsParams(t *testing.T) {
	full := args(t, "path", "x.go", "content", "package x\n\nfunc f() {}\n")
	var nr nativeReader
	nr.Feed(llm.Chunk{Text: "Writing."})
	nr.Feed(llm.Chunk{ToolCalls: []llm.ToolCallDelta{{Index: 0, ID: "c", Name: "write_to_file"}}})
	prev := ""
	for i := 0; i < len(full); i += 3 {
		nr.Feed(llm.Chunk{ToolCalls: []llm.ToolCallDelta{{Index: 0, Arguments: full[i:min(i+3, len(full))]}}})
		blocks := nr.Blocks()
		if len(blocks) != 2 || blocks[0].Content != "Writing." || blocks[1].Type != parse.ToolUse || blocks[1].Name != "write_to_file" {
			t.Fatalf("blocks %+v", blocks)
		}
		got := blocks[1].Params["content"]
		if !strings.HasPrefix(got, prev) {
			t.Fatalf("content went from %q to %q", prev, got)
		}
		prev = got
		if done := i+3 >= len(full); blocks[1].Partial == done || nr.ToolDone() != done {
			t.Fatalf("at %d: partial %v, done %v", i, blocks[1].Partial, nr.ToolDone())
		}
	}
	rep := nr.reply(llm.FinishToolCalls)
	if rep.tool == nil || rep.tool.Params["content"] != "package x\n\nfunc f() {}\n" || len(rep.calls) != 1 || rep.calls[0].ID != "c" {
		t.Fatalf("reply %+v", rep)
	}
}

// Reasoning is shown (a reasoning row) but never sent back to the model, and the reasoning
// effort setting reaches models whose table entry takes one, and only those.
func TestReasoningNotReplayedAndEffortSent(t *testing.T) {
	for _, tc := range []struct {
		name       string
		takes      bool
		wantEffort string
	}{{"model takes effort", true, "high"}, {"model without effort", false, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			r := nativeRig(t,
				llmtest.Turn{Reasoning: "private chain of thought", ToolCalls: []llmtest.ToolCall{{Name: "read_file", Arguments: args(t, "path", "a.txt")}}, ChunkSize: 4},
				completionCall(t),
			)
			r.info.ReasoningEffort = tc.takes
			r.settings = func(s *config.Settings) {
				s.AutoApprove.Enabled, s.AutoApprove.YOLO = true, true
				s.API.ReasoningEffort = "high"
			}
			writeFile(t, filepath.Join(r.root, "a.txt"), "alpha\n")
			tk := r.newTask("read a")
			waitAsk(t, tk, msg.AskCompletionResult)
			shown := false
			for _, m := range tk.Messages() {
				shown = shown || m.Kind == msg.SayReasoning && m.Text == "private chain of thought"
			}
			if !shown {
				t.Error("the reasoning was not shown")
			}
			for _, req := range r.llm.Requests() {
				if strings.Contains(string(req.Raw), "private chain") || strings.Contains(string(req.Raw), "reasoning_content") {
					t.Errorf("request %d sends the reasoning back", req.Turn)
				}
				if req.ReasoningEffort != tc.wantEffort {
					t.Errorf("request %d: reasoning_effort %q, want %q", req.Turn, req.ReasoningEffort, tc.wantEffort)
				}
			}
		})
	}
}
