package delegate

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// fakeRunner records the subtask it was given and plays one update.
type fakeRunner struct {
	mode, message string
	report        Report
}

func (f *fakeRunner) Run(_ context.Context, _ *tools.Env, mode, message string, update func(msg.Subagent)) (Report, error) {
	f.mode, f.message = mode, message
	update(msg.Subagent{Prompt: message, Mode: mode, Status: msg.SubagentDone, Requests: 2})
	return f.report, nil
}

// modes is a task's mode catalogue with act, plan, orchestrator and docs.
type modes struct{}

func (modes) Current() string { return "orchestrator" }
func (modes) Name(slug string) (string, bool) {
	n, ok := map[string]string{"act": "Act", "plan": "Plan", "orchestrator": "Orchestrator", "docs": "Docs Writer"}[slug]
	return n, ok
}
func (modes) Switch(string) error { return nil }

func TestDelegate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		params   map[string]string
		approved bool
		report   Report
		want     string // in the result
		isError  bool
		ran      bool
	}{
		{name: "no mode", params: map[string]string{"message": "x"}, approved: true, want: "mode", isError: true},
		{name: "no message", params: map[string]string{"mode": "docs"}, approved: true, want: "message", isError: true},
		{name: "unknown mode", params: map[string]string{"mode": "nope", "message": "x"}, approved: true, want: `no mode "nope"`, isError: true},
		{name: "plan", params: map[string]string{"mode": "plan", "message": "x"}, approved: true, want: "cannot run in the plan mode", isError: true},
		{name: "orchestrator", params: map[string]string{"mode": "orchestrator", "message": "x"}, approved: true, want: "cannot run in the orchestrator mode", isError: true},
		{name: "denied", params: map[string]string{"mode": "docs", "message": "Write it."}, want: "did not start"},
		{name: "done", params: map[string]string{"mode": "docs", "message": "Write it."}, approved: true,
			report: Report{Done: true, Text: "Wrote NOTES.md."}, want: "The subtask in the Docs Writer mode finished. Its summary:\n\nWrote NOTES.md.", ran: true},
		{name: "failed", params: map[string]string{"mode": "docs", "message": "Write it."}, approved: true,
			report: Report{Text: "the request limit was reached"}, want: "did not finish: the request limit was reached", isError: true, ran: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeRunner{report: tc.report}
			ui := &toolstest.UI{Answer: tools.Answer{Approved: tc.approved}}
			res, err := New(r).Run(context.Background(), &tools.Env{UI: ui, Modes: modes{}}, tools.Call{Name: Name, Params: tc.params})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text, tc.want) || res.IsError != tc.isError {
				t.Fatalf("result %q (error %v), want %q (error %v)", res.Text, res.IsError, tc.want, tc.isError)
			}
			if (r.mode != "") != tc.ran {
				t.Fatalf("ran = %v, want %v", r.mode != "", tc.ran)
			}
			if tc.ran {
				if r.mode != "docs" || r.message != "Write it." {
					t.Fatalf("runner got %q %q", r.mode, r.message)
				}
				last := ui.Says[len(ui.Says)-1]
				if last.Kind != msg.SaySubagents || !strings.Contains(last.Text, `"mode":"docs"`) {
					t.Fatalf("last row %+v", last)
				}
				if a := ui.Approvals[0]; a.Payload.(*msg.Tool).Op != msg.OpDelegate || a.Payload.(*msg.Tool).Path != "docs" {
					t.Fatalf("approval %+v", a)
				}
			}
		})
	}
}
