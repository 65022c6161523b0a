package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
)

// subRig is a daemon's worth of agent around the fake model: a workspace, the assembler and
// a task manager (tasks are not stored).
type subRig struct {
	t    *testing.T
	root string
	llm  *llmtest.Server
	env  *fakeEnv
	mgr  *task.Manager
}

func newSubRig(t *testing.T, script llmtest.Script, policy func(*config.AutoApprove)) *subRig {
	t.Helper()
	r := &subRig{t: t, root: t.TempDir(), llm: llmtest.New(t, script), env: newEnv()}
	for _, n := range []string{"a", "b", "c"} {
		write(t, filepath.Join(r.root, n+".txt"), "contents of "+n+"\n")
	}
	r.env.set(func(s *config.Settings) {
		s.API.BaseURL = r.llm.URL()
		s.CheckpointsEnabled = false
		s.AutoApprove = config.AutoApprove{}
		if policy != nil {
			policy(&s.AutoApprove)
		}
	})
	a := New(r.env, Config{GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	r.mgr = task.NewManager(nil, a.Deps)
	t.Cleanup(func() { r.mgr.CloseAll(context.Background()) })
	return r
}

func (r *subRig) start(text string) *task.Task {
	r.t.Helper()
	tk, err := r.mgr.New(context.Background(), task.Options{Workspace: []string{r.root}}, text, nil, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	return tk
}

func readsOn(p *config.AutoApprove) { p.Enabled, p.ReadFiles = true, true }

func priced(turn llmtest.Turn, cost float64) llmtest.Turn {
	turn.Usage = &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10, Cost: &cost}
	return turn
}

func useSubagents(prompts ...string) string {
	var b strings.Builder
	b.WriteString("I will split this up.\n<use_subagents>\n")
	for i, p := range prompts {
		b.WriteString("<prompt_" + string(rune('1'+i)) + ">" + p + "</prompt_" + string(rune('1'+i)) + ">\n")
	}
	b.WriteString("</use_subagents>")
	return b.String()
}

func completion(result string) string {
	return "<attempt_completion>\n<result>" + result + "</result>\n</attempt_completion>"
}

func readFile(path string) string {
	return "<read_file>\n<path>" + path + "</path>\n</read_file>"
}

// waitEnd waits until the task's run is over.
func waitEnd(t *testing.T, tk *task.Task) {
	t.Helper()
	if done := tk.Done(); done != nil {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			for _, m := range tk.Messages() {
				t.Logf("%s %s %q", m.Type, m.Kind, m.Text)
			}
			t.Fatal("the task did not end")
		}
	}
}

// subagentsRow decodes the task's subagents row.
func subagentsRow(t *testing.T, tk *task.Task) (msg.Subagents, bool) {
	t.Helper()
	for _, m := range tk.Messages() {
		if m.Type == msg.Say && m.Kind == msg.SaySubagents {
			var s msg.Subagents
			if err := json.Unmarshal([]byte(m.Text), &s); err != nil {
				t.Fatalf("subagents row: %v in %q", err, m.Text)
			}
			return s, m.Partial
		}
	}
	return msg.Subagents{}, false
}

// Three subagents run side by side: the fake model holds each one's first reply until all
// three requests have arrived (a gate), so the run can only finish if they were in flight
// together. The parent receives the three reports — and not the files they read — and its
// cost and request count include theirs.
func TestThreeSubagentsRunTogether(t *testing.T) {
	gate := &llmtest.Gate{Name: "first", Count: 3}
	var routes []llmtest.Route
	for _, n := range []string{"a", "b", "c"} {
		marker := "[child " + n + "]"
		first := priced(llmtest.Turn{Text: readFile(n + ".txt")}, 0.125)
		first.Gate = gate
		routes = append(routes, llmtest.Route{FirstUserContains: marker, Turns: []llmtest.Turn{
			first,
			priced(llmtest.Turn{Text: completion("report " + n + ": the file says contents of " + n),
				Expect: &llmtest.Expect{LastUserContains: []string{"contents of " + n}}}, 0.125),
		}})
	}
	r := newSubRig(t, llmtest.Script{
		Turns: []llmtest.Turn{
			priced(llmtest.Turn{Text: useSubagents("[child a] Read a.txt.", "[child b] Read b.txt.", "[child c] Read c.txt.")}, 0.5),
			priced(llmtest.Turn{Text: completion("all read"), Expect: &llmtest.Expect{
				LastUserContains: []string{"report a: the file says contents of a", "report b: the file says contents of b",
					"report c: the file says contents of c", `number="3" status="done"`},
				NotContains: []string{"<file_content"},
			}}, 0.5),
		},
		Routes: routes,
	}, readsOn)
	tk := r.start("Survey the three files.")
	accept(t, tk)
	waitEnd(t, tk)
	if err := r.llm.Err(); err != nil {
		t.Fatal(err)
	}
	st := tk.State()
	if st.Status != task.StatusCompleted {
		t.Fatalf("status %s, messages %+v", st.Status, tk.Messages())
	}
	if st.Requests != 8 || st.Cost != 1.75 {
		t.Errorf("parent requests %d cost %v; want 8 (2 + 3×2) and 1.75 (2×0.5 + 6×0.125)", st.Requests, st.Cost)
	}
	row, partial := subagentsRow(t, tk)
	if partial || len(row.Children) != 3 {
		t.Fatalf("row partial=%v children=%+v", partial, row.Children)
	}
	for i, n := range []string{"a", "b", "c"} {
		c := row.Children[i]
		if c.Status != msg.SubagentDone || c.Requests != 2 || c.Cost != 0.25 || c.LastTool != "attempt_completion" ||
			!strings.Contains(c.Prompt, "[child "+n+"]") {
			t.Errorf("child %d: %+v", i+1, c)
		}
	}
	// The parent's context grew by the reports only: its history holds no file contents.
	for _, m := range tk.API() {
		for _, c := range m.Content {
			if strings.Contains(c.Text, "<file_content") || strings.Contains(c.Text, "[read_file") {
				t.Fatalf("a child's read reached the parent: %q", c.Text)
			}
		}
	}
	if n := len(r.mgr.Tasks()); n != 1 {
		t.Errorf("%d tasks in the manager, want the parent only", n)
	}
}

// A subagent has read tools only: the others are not in its grammar, so a call of one is no
// call at all (the model is told nothing happened), and nothing is written. Reading outside the workspace follows the parent's setting, and
// the ignore file still applies.
func TestSubagentsOnlyRead(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	cases := []struct {
		name, call, want string
	}{
		{"write", "<write_to_file>\n<path>new.txt</path>\n<content>hi</content>\n</write_to_file>", "contained no tool call"},
		{"replace", "<replace_in_file>\n<path>a.txt</path>\n<diff>x</diff>\n</replace_in_file>", "contained no tool call"},
		{"command", "<execute_command>\n<command>touch made.txt</command>\n<requires_approval>false</requires_approval>\n</execute_command>", "contained no tool call"},
		{"nested", "<use_subagents>\n<prompt_1>go</prompt_1>\n</use_subagents>", "contained no tool call"},
		{"outside", readFile(outside), "cannot ask for it"},
		{"ignored", readFile("private/key.txt"), ".clineignore"},
	}
	var routes []llmtest.Route
	var prompts []string
	for _, c := range cases[:4] {
		marker := "[" + c.name + "]"
		routes = append(routes, llmtest.Route{FirstUserContains: marker, Turns: []llmtest.Turn{
			{Text: c.call},
			{Text: completion("tried " + c.name), Expect: &llmtest.Expect{LastUserContains: []string{c.want}}},
		}})
		prompts = append(prompts, marker+" try it")
	}
	var prompts2 []string
	for _, c := range cases[4:] {
		marker := "[" + c.name + "]"
		routes = append(routes, llmtest.Route{FirstUserContains: marker, Turns: []llmtest.Turn{
			{Text: c.call},
			{Text: completion("tried " + c.name), Expect: &llmtest.Expect{LastUserContains: []string{c.want}}},
		}})
		prompts2 = append(prompts2, marker+" try it")
	}
	r := newSubRig(t, llmtest.Script{
		Turns: []llmtest.Turn{
			{Text: useSubagents(prompts...)},
			{Text: useSubagents(prompts2...), Expect: &llmtest.Expect{LastUserContains: []string{"tried write", "tried replace", "tried command", "tried nested"}}},
			{Text: completion("done"), Expect: &llmtest.Expect{LastUserContains: []string{"tried outside", "tried ignored"}}},
		},
		Routes: routes,
	}, readsOn)
	write(t, outside, "top secret")
	write(t, filepath.Join(r.root, ".clineignore"), "private/\n")
	write(t, filepath.Join(r.root, "private", "key.txt"), "key")
	tk := r.start("Try everything.")
	accept(t, tk)
	waitEnd(t, tk)
	if err := r.llm.Err(); err != nil {
		t.Fatal(err)
	}
	if st := tk.State(); st.Status != task.StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
	for _, f := range []string{"new.txt", "made.txt"} {
		if _, err := os.Stat(filepath.Join(r.root, f)); !os.IsNotExist(err) {
			t.Errorf("%s exists: a subagent wrote (%v)", f, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(r.root, "a.txt")); err != nil || string(b) != "contents of a\n" {
		t.Errorf("a.txt changed: %q %v", b, err)
	}
}

// Cancelling the parent while its three subagents wait on the model stops all four, and no
// goroutine of theirs is left behind.
func TestCancelStopsParentAndSubagents(t *testing.T) {
	before := runtime.NumGoroutine()
	var routes []llmtest.Route
	for _, n := range []string{"a", "b", "c"} {
		routes = append(routes, llmtest.Route{FirstUserContains: "[child " + n + "]", Turns: []llmtest.Turn{
			{Text: readFile(n + ".txt"), Fault: &llmtest.Fault{Hang: true}},
		}})
	}
	// Reads are not auto-approved: the call asks first.
	r := newSubRig(t, llmtest.Script{
		Turns:  []llmtest.Turn{{Text: useSubagents("[child a] Read a.txt.", "[child b] Read b.txt.", "[child c] Read c.txt.")}},
		Routes: routes,
	}, nil)
	tk := r.start("Survey the three files.")
	waitFor(t, "the approval", func() bool { return tk.OpenAsk() == msg.AskTool })
	if err := tk.Answer(-1, toolsYes); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "three children waiting on the model", func() bool { return len(r.llm.Requests()) == 4 })
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := tk.State(); st.Status != task.StatusWaiting && st.Status != task.StatusCancelled {
		t.Fatalf("parent status %s", st.Status)
	}
	row, partial := subagentsRow(t, tk)
	if partial || len(row.Children) != 3 {
		t.Fatalf("row partial=%v %+v", partial, row)
	}
	for i, c := range row.Children {
		if c.Status != msg.SubagentFailed || c.Requests != 1 {
			t.Errorf("child %d: %+v", i+1, c)
		}
	}
	r.mgr.CloseAll(context.Background())
	r.llm.Close()
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
}

// accept accepts the parent's result once it presents it.
func accept(t *testing.T, tk *task.Task) {
	t.Helper()
	waitFor(t, "the result", func() bool { return tk.OpenAsk() == msg.AskCompletionResult })
	if err := tk.Answer(-1, toolsYes); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond (a test failing here shows what it waited for).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

var toolsYes = tools.Answer{Approved: true}

// Subagents' requests count toward the parent's request limit as they happen: with a limit of
// 3, the parent's call and two of the child's requests use it up, the child stops before its
// third, and the parent asks before its next request.
func TestSubagentsCountTowardTheParentsLimit(t *testing.T) {
	r := newSubRig(t, llmtest.Script{
		Turns: []llmtest.Turn{{Text: useSubagents("[child a] Read everything.")}},
		Routes: []llmtest.Route{{FirstUserContains: "[child a]", Turns: []llmtest.Turn{
			{Text: readFile("a.txt")}, {Text: readFile("b.txt")},
		}}},
	}, func(p *config.AutoApprove) { readsOn(p) })
	r.env.set(func(s *config.Settings) { s.TaskLimits.MaxRequests = 3 })
	tk := r.start("Read everything.")
	waitFor(t, "the limit question", func() bool { return tk.OpenAsk() == msg.AskTaskLimitReached })
	if st := tk.State(); st.Requests != 3 {
		t.Errorf("parent requests %d, want 3", st.Requests)
	}
	row, _ := subagentsRow(t, tk)
	if len(row.Children) != 1 || row.Children[0].Status != msg.SubagentFailed || row.Children[0].Requests != 2 ||
		!strings.Contains(row.Children[0].Error, "parent task reached its limit") {
		t.Fatalf("child: %+v", row.Children)
	}
	if n := len(r.llm.Requests()); n != 3 {
		t.Errorf("the model got %d requests, want 3", n)
	}
}
