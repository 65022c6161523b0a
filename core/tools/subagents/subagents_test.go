package subagents

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// fakeRunner reports what it was given and plays one update.
type fakeRunner struct {
	prompts []string
	reports []Report
}

func (f *fakeRunner) Run(_ context.Context, _ *tools.Env, prompts []string, update func([]msg.Subagent)) ([]Report, error) {
	f.prompts = prompts
	states := make([]msg.Subagent, len(prompts))
	for i, p := range prompts {
		states[i] = msg.Subagent{Prompt: p, Status: msg.SubagentDone, Requests: 1}
	}
	update(states)
	return f.reports, nil
}

func TestUseSubagents(t *testing.T) {
	cases := []struct {
		name     string
		params   map[string]string
		approved bool
		reports  []Report
		want     []string // in the result text
		rejected bool
		ran      int // prompts the runner got
	}{
		{name: "no prompt", params: map[string]string{"prompt_1": "  "}, approved: true, want: []string{"prompt_1"}},
		{name: "denied", params: map[string]string{"prompt_1": "look"}, want: []string{"did not allow"}, rejected: true},
		{name: "reports in order", approved: true,
			params:  map[string]string{"prompt_1": "first", "prompt_3": "third", "prompt_2": " "},
			reports: []Report{{Done: true, Text: "found it"}, {Text: "it was cancelled"}},
			want: []string{"2 subagents ran", `number="1" status="done">` + "\nfound it",
				`number="2" status="failed">` + "\nIt ended without a report: it was cancelled"},
			ran: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &toolstest.UI{Answer: tools.Answer{Approved: c.approved}}
			run := &fakeRunner{reports: c.reports}
			res, err := New(run).Run(context.Background(), &tools.Env{UI: ui}, tools.Call{Name: Name, Params: c.params})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result %q lacks %q", res.Text, w)
				}
			}
			if res.Rejected != c.rejected {
				t.Errorf("rejected = %v", res.Rejected)
			}
			if c.name == "no prompt" {
				return
			}
			if len(ui.Approvals) != 1 || ui.Approvals[0].Category != tools.CategoryRead || !ui.Approvals[0].Inside {
				t.Fatalf("approvals: %+v", ui.Approvals)
			}
			if len(run.prompts) != c.ran {
				t.Fatalf("runner got %q", run.prompts)
			}
			if c.ran == 0 {
				return
			}
			last := ui.Says[len(ui.Says)-1]
			var row msg.Subagents
			if last.Kind != msg.SaySubagents || json.Unmarshal([]byte(last.Text), &row) != nil || len(row.Children) != c.ran ||
				row.Children[0].Status != msg.SubagentDone {
				t.Errorf("last row %+v", last)
			}
		})
	}
}

// The child's first message says what a subagent is, then its assignment.
func TestChildPrompt(t *testing.T) {
	p := ChildPrompt("  find the parser  ")
	if !strings.HasSuffix(p, "Assignment:\nfind the parser") || !strings.Contains(p, "attempt_completion") {
		t.Fatalf("%q", p)
	}
}
