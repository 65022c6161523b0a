package task

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/edit"
)

// dirTurns checkpoints a real folder the way the agent's checkpoints do: the hash of its
// files, and "" when it is the same as the last one returned.
type dirTurns struct {
	bareTurns
	root string
	// slowFirst delays the first snapshot, as a large workspace does: a step that changes
	// files must still wait for it.
	slowFirst time.Duration

	// mu guards last and taken.
	mu    sync.Mutex
	last  string
	taken bool
}

func (d *dirTurns) Checkpoint(context.Context) (string, error) {
	d.mu.Lock()
	first := !d.taken
	d.taken = true
	d.mu.Unlock()
	if first {
		time.Sleep(d.slowFirst)
	}
	h := sha256.New()
	err := filepath.WalkDir(d.root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	hash := hex.EncodeToString(h.Sum(nil))[:12]
	d.mu.Lock()
	defer d.mu.Unlock()
	if hash == d.last {
		return "", nil
	}
	d.last = hash
	return hash, nil
}

// echoTool is an MCP tool call that answers without touching the workspace.
type echoTool struct{}

func (echoTool) Spec() tools.Spec {
	return tools.Spec{Name: "mcp_echo", Description: "Echoes.", Category: tools.CategoryMCP, PlanSafe: true,
		Params: []tools.Param{{Name: "text"}}}
}

func (echoTool) Run(_ context.Context, _ *tools.Env, call tools.Call) (tools.Result, error) {
	return tools.Result{Text: call.Params["text"]}, nil
}

// fileTool writes notes.txt in the workspace, through a tool category no checkpoint follows
// (as an MCP server's write_file would).
type fileTool struct{ root string }

func (f fileTool) Spec() tools.Spec {
	return tools.Spec{Name: "mcp_write", Description: "Writes.", Category: tools.CategoryMCP, PlanSafe: true}
}

func (f fileTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	if err := os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("written\n"), 0o600); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: "wrote notes.txt"}, nil
}

// completionChanges is the Changes of each completion row (nil: unset).
func completionChanges(tk *Task) []*bool {
	var out []*bool
	for _, m := range rowsOf(tk, msg.SayCompletionResult) {
		if p, ok := m.Payload.(*msg.Completion); ok {
			out = append(out, p.Changes)
		}
	}
	return out
}

// A completion offers "See new changes" only when the workspace differs from what it was at
// the previous completion, whatever kind of step ran: an MCP echo or a write a hook blocked
// offers nothing, a write does (also one no checkpoint follows), and a second completion
// after no further work offers nothing again.
func TestCompletionSaysWhetherFilesChanged(t *testing.T) {
	const echo = "Echoing.\n<mcp_echo>\n<text>hi</text>\n</mcp_echo>"
	const writeNote = "Writing.\n<write_note>\n</write_note>"
	const mcpWrite = "Writing.\n<mcp_write>\n</mcp_write>"
	// blockWrites is a PreToolUse hook that blocks write_to_file (hooks_test.go).
	const blockWrites = `#!/bin/sh
case "$(cat)" in
  *'"toolName":"write_to_file"'*) echo '{"cancel": true, "errorMessage": "Writes are frozen."}';;
  *) echo '{"cancel": false}';;
esac
`
	tests := []struct {
		name  string
		steps []llmtest.Turn // the model's turns before its completion
		// hooked runs the blocking hook (the step is a write_to_file it blocks).
		hooked bool
		want   bool
	}{
		{name: "only an MCP echo", steps: []llmtest.Turn{{Text: echo}}, want: false},
		{name: "an edit", steps: []llmtest.Turn{{Text: writeNote}}, want: true},
		{name: "an MCP call that wrote a file", steps: []llmtest.Turn{{Text: mcpWrite}}, want: true},
		{name: "a write a hook blocked", steps: []llmtest.Turn{writeCall("a.txt", "new\n")}, hooked: true, want: false},
		{name: "no step at all", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turns := append(slices.Clone(tc.steps), llmtest.Turn{Text: completion}, llmtest.Turn{Text: completion})
			r := newRig(t, llmtest.Script{Turns: turns})
			dt := &dirTurns{root: r.root, slowFirst: 300 * time.Millisecond}
			r.extra = []tools.Tool{echoTool{}, fileTool{root: r.root}, rootWriteTool{root: r.root}, edit.NewWrite()}
			r.settings = editsApproved
			if tc.hooked {
				r.hooks = realHooks(t, map[hooks.Kind]testHook{hooks.PreToolUse: {blockWrites, "block-writes"}}, 0)
			}
			r.turns = func() Turns { return dt }
			tk := r.newTask("do it")
			waitAsk(t, tk, msg.AskCompletionResult)
			if tc.hooked && len(rowsOf(tk, msg.SayHook)) == 0 {
				t.Fatalf("the hook did not block the write: %v", tk.Messages())
			}
			got := completionChanges(tk)
			if len(got) != 1 || got[0] == nil || *got[0] != tc.want {
				t.Fatalf("first completion's changes %v, want %v (rows %v)", deref(got), tc.want, tk.Messages())
			}
			// Feedback, then a second completion with no work in between: nothing new.
			if err := tk.AnswerKind(msg.AskCompletionResult, tools.Answer{Text: "anything else?"}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the second completion", func() bool { return len(completionChanges(tk)) == 2 && tk.OpenAsk() == msg.AskCompletionResult })
			if got := completionChanges(tk); got[1] == nil || *got[1] {
				t.Fatalf("second completion's changes %v, want false", deref(got))
			}
		})
	}
}

// rootWriteTool is an edit tool that writes note.txt in the workspace.
type rootWriteTool struct{ root string }

func (w rootWriteTool) Spec() tools.Spec {
	return tools.Spec{Name: "write_note", Description: "Writes.", Category: tools.CategoryEdit}
}

func (w rootWriteTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	p := filepath.Join(w.root, "note.txt")
	if err := os.WriteFile(p, []byte("note\n"), 0o600); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: "written", Changed: []string{p}}, nil
}

func deref(bs []*bool) []any {
	out := make([]any, len(bs))
	for i, b := range bs {
		if b == nil {
			out[i] = nil
		} else {
			out[i] = *b
		}
	}
	return out
}
