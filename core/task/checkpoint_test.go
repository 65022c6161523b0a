package task

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// heldTurns is a Turns whose first Checkpoint waits until release is closed (or its context
// ends) and then answers hash or err; later checkpoints answer at once. It logs what happened
// in order, beside the tools that log into it.
type heldTurns struct {
	bareTurns
	release chan struct{}
	hash    string
	err     error

	// mu guards the fields below.
	mu      sync.Mutex
	calls   int
	log     []string
	stopped bool // the first checkpoint saw its context end
}

func (h *heldTurns) Checkpoint(ctx context.Context) (string, error) {
	h.mu.Lock()
	h.calls++
	first := h.calls == 1
	h.mu.Unlock()
	if first {
		select {
		case <-h.release:
		case <-ctx.Done():
			h.mu.Lock()
			h.stopped = true
			h.mu.Unlock()
			return "", ctx.Err()
		}
	}
	h.note("checkpoint")
	return h.hash, h.err
}

func (h *heldTurns) note(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, s)
}

func (h *heldTurns) events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

// writeTool stands for any tool that may change files (not safe in PLAN mode).
type writeTool struct{ turns *heldTurns }

func (w writeTool) Spec() tools.Spec {
	return tools.Spec{Name: "write_note", Description: "Writes.", Category: tools.CategoryEdit}
}

func (w writeTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	w.turns.note("write")
	return tools.Result{Text: "written", Changed: []string{"note.txt"}}, nil
}

func rowsOf(tk *Task, kind msg.Kind) []msg.Message {
	var out []msg.Message
	for _, m := range tk.Messages() {
		if m.Type == msg.Say && m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// The first checkpoint runs beside the first request: the request goes out while the
// snapshot is still being taken, a tool that may change files waits for it, and its row and
// errors look as they did when it ran first.
func TestFirstCheckpointInBackground(t *testing.T) {
	const writeCall = "Writing.\n<write_note>\n</write_note>"
	tests := []struct {
		name string
		err  error
		// wantLog is the order of the checkpoints and the write: the first, the write, the one
		// after it, and the completion's (core/task/checkpoints).
		wantLog []string
		// wantRow is the kind of the row the first checkpoint leaves.
		wantRow msg.Kind
	}{
		{name: "snapshot before the write", wantLog: []string{"checkpoint", "write", "checkpoint", "checkpoint"},
			wantRow: msg.SayCheckpointCreated},
		{name: "failure shown as an error row", err: errors.New("checkpoints: git broke"),
			wantLog: []string{"checkpoint", "write", "checkpoint", "checkpoint"}, wantRow: msg.SayError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ht := &heldTurns{release: make(chan struct{}), hash: "abc1234", err: tc.err}
			r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: writeCall}, {Text: completion}}}, writeTool{ht})
			r.turns = func() Turns { return ht }
			tk := r.newTask("write a note")
			// The model is asked while the snapshot is held.
			waitFor(t, "the first request", func() bool { return len(r.llm.Requests()) == 1 })
			waitFor(t, "the reply's text", func() bool {
				rows := rowsOf(tk, msg.SayText)
				return len(rows) == 1 && !rows[0].Partial
			})
			if got := ht.events(); len(got) != 0 {
				t.Fatalf("ran %v before the first checkpoint was complete", got)
			}
			close(ht.release)
			waitAsk(t, tk, msg.AskCompletionResult)
			if got := ht.events(); !slices.Equal(got, tc.wantLog) {
				t.Fatalf("order %v, want %v", got, tc.wantLog)
			}
			rows := rowsOf(tk, tc.wantRow)
			if len(rows) == 0 {
				t.Fatalf("no %s row in %v", tc.wantRow, tk.Messages())
			}
			if cp, ok := rows[0].Payload.(*msg.Checkpoint); tc.err == nil && (!ok || cp.Hash != "abc1234" || cp.APIIndex != 1) {
				t.Fatalf("checkpoint row payload %+v, want hash abc1234 at API message 1", rows[0].Payload)
			}
			if tc.err != nil && rows[0].Text != tc.err.Error() {
				t.Fatalf("error row %q, want %q", rows[0].Text, tc.err.Error())
			}
		})
	}
}

// Cancelling a run while its first checkpoint runs stops the checkpoint too, without an error
// row, and the run still ends (the task asks to be resumed).
func TestCancelStopsFirstCheckpoint(t *testing.T) {
	ht := &heldTurns{release: make(chan struct{}), hash: "abc1234"}
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "<ask_followup_question>\n<question>Which?</question>\n</ask_followup_question>"}}})
	r.turns = func() Turns { return ht }
	tk := r.newTask("ask me")
	waitAsk(t, tk, msg.AskFollowup)
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskResumeTask)
	ht.mu.Lock()
	stopped := ht.stopped
	ht.mu.Unlock()
	if !stopped {
		t.Fatal("the first checkpoint was not cancelled with its run")
	}
	if rows := rowsOf(tk, msg.SayError); len(rows) != 0 {
		t.Fatalf("error rows after a cancel: %v", rows)
	}
}
