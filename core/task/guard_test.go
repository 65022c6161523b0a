package task

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// noteTool records the notes it is called with; "fail" makes it return an error result.
type noteTool struct {
	// mu guards ran.
	mu  sync.Mutex
	ran []string
}

func (*noteTool) Spec() tools.Spec {
	return tools.Spec{Name: "note", Description: "Notes.", Category: tools.CategoryInteract, PlanSafe: true, ArgParam: "text",
		Params: []tools.Param{{Name: "text", Required: true}}}
}

func (n *noteTool) Run(_ context.Context, _ *tools.Env, c tools.Call) (tools.Result, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ran = append(n.ran, c.Params["text"])
	if c.Params["text"] == "fail" {
		return tools.Result{Text: "it failed", IsError: true}, nil
	}
	return tools.Result{Text: "noted"}, nil
}

func (n *noteTool) calls() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.ran, ",")
}

func noteCall(text string) llmtest.Turn {
	return llmtest.Turn{Text: "<note>\n<text>" + text + "</text>\n</note>"}
}

func priced(turn llmtest.Turn, cost float64) llmtest.Turn {
	turn.Usage = &llmtest.Usage{PromptTokens: 10, CompletionTokens: 5, Cost: &cost}
	return turn
}

// The request limit is exact: with a limit of N, N requests are made and the task asks
// before the next one. Stopping ends the task there; continuing raises the limit by its
// size and the user's words reach the model.
func TestRequestLimitIsExact(t *testing.T) {
	cases := []struct {
		name     string
		answer   tools.Answer
		requests int    // model requests in the end
		status   Status // the task's status in the end
	}{
		{"stop", tools.Answer{}, 3, StatusFailed},
		{"continue", tools.Answer{Text: "keep going"}, 4, StatusWaiting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nt := &noteTool{}
			r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
				noteCall("a"), noteCall("b"), noteCall("c"),
				{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"keep going"}}},
			}}, nt)
			r.settings = func(s *config.Settings) { s.TaskLimits.MaxRequests = 3 }
			tk := r.newTask("count")
			waitAsk(t, tk, msg.AskTaskLimitReached)
			if n := len(r.llm.Requests()); n != 3 {
				t.Fatalf("%d requests before the limit question, want 3", n)
			}
			if st := tk.State(); st.Requests != 3 || st.Limits.MaxRequests != 3 {
				t.Fatalf("state: %d requests of %d", st.Requests, st.Limits.MaxRequests)
			}
			if err := tk.Answer(-1, c.answer); err != nil {
				t.Fatal(err)
			}
			if c.status == StatusFailed {
				waitFor(t, "the task to stop", func() bool { return tk.State().Status == StatusFailed })
			} else {
				waitAsk(t, tk, msg.AskCompletionResult)
				if got := tk.State().Limits.MaxRequests; got != 6 {
					t.Errorf("limit after continuing: %d, want 6", got)
				}
			}
			if n := len(r.llm.Requests()); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
			if err := r.llm.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}

// The cost limit holds at its boundary: a task whose cost reached the limit exactly stops
// before the next request; one just under it makes one more.
func TestCostLimitAtItsBoundary(t *testing.T) {
	cases := []struct {
		name     string
		limit    float64
		requests int
	}{
		{"reached exactly", 0.50, 2},
		{"just under", 0.5000001, 3},
		{"first request already over", 0.10, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nt := &noteTool{}
			r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
				priced(noteCall("a"), 0.25), priced(noteCall("b"), 0.25), priced(noteCall("c"), 0.25),
				priced(noteCall("d"), 0.25),
			}}, nt)
			r.settings = func(s *config.Settings) { s.TaskLimits.MaxCost = c.limit }
			tk := r.newTask("spend")
			waitAsk(t, tk, msg.AskTaskLimitReached)
			if n := len(r.llm.Requests()); n != c.requests {
				t.Fatalf("%d requests before the limit question, want %d", n, c.requests)
			}
			ask := tk.Messages()[tk.State().OpenAsk]
			if !strings.Contains(ask.Text, fmt.Sprintf("$%.2f", c.limit)) {
				t.Errorf("the question does not name the limit: %q", ask.Text)
			}
		})
	}
}

// A cost limit that prices cannot check is stated when the task starts.
func TestUnpricedCostLimitIsStated(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	r.settings = func(s *config.Settings) { s.TaskLimits.MaxCost = 2 }
	tk := r.newTask("go")
	waitAsk(t, tk, msg.AskCompletionResult)
	for _, m := range tk.Messages() {
		if m.Kind == msg.SayInfo && strings.Contains(m.Text, "cost limit of $2.00") {
			return
		}
	}
	t.Fatal("no row says the cost limit cannot be checked from prices")
}

// The same call a third time in a row is not run; a changed parameter starts the count over;
// continuing starts it over too and passes the user's words on; identical calls that fail are
// the mistake limit's, counted once.
func TestLoopStop(t *testing.T) {
	cases := []struct {
		name  string
		turns []llmtest.Turn
		ask   msg.Kind // the question the task stops with
		ran   string   // the note tool's calls, in order, when the question is open
	}{
		{"third identical call stopped",
			[]llmtest.Turn{noteCall("a"), noteCall("a"), noteCall("a")},
			msg.AskRepeatedToolCall, "a,a"},
		{"changed parameter resets",
			[]llmtest.Turn{noteCall("a"), noteCall("a"), noteCall("b"), noteCall("a"), noteCall("a"), noteCall("a")},
			msg.AskRepeatedToolCall, "a,a,b,a,a"},
		{"the todo list is not a parameter",
			[]llmtest.Turn{noteCall("a"), {Text: "<note>\n<text>a</text>\n<task_progress>- [ ] x</task_progress>\n</note>"}, noteCall("a")},
			msg.AskRepeatedToolCall, "a,a"},
		{"failing calls are repetitions too",
			[]llmtest.Turn{noteCall("fail"), noteCall("fail"), noteCall("fail")},
			msg.AskRepeatedToolCall, "fail,fail"},
		{"mistakes go to the mistake limit only",
			[]llmtest.Turn{noteCall(" "), noteCall(" "), noteCall(" "), {Text: completion}},
			msg.AskMistakeLimitReached, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nt := &noteTool{}
			r := newRig(t, llmtest.Script{Turns: c.turns}, nt)
			tk := r.newTask("loop")
			waitAsk(t, tk, c.ask)
			if got := nt.calls(); got != c.ran {
				t.Fatalf("ran %q, want %q", got, c.ran)
			}
		})
	}
}

// Continuing after a loop stop starts the count over and the model hears the user.
func TestLoopStopContinue(t *testing.T) {
	nt := &noteTool{}
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
		noteCall("a"), noteCall("a"), noteCall("a"),
		{Text: "<note>\n<text>a</text>\n</note>", Expect: &llmtest.Expect{LastUserContains: []string{
			"[note for 'a'] Result:", "did not run this tool call", "read b instead"}}},
		{Text: completion},
	}}, nt)
	tk := r.newTask("loop")
	waitAsk(t, tk, msg.AskRepeatedToolCall)
	if err := tk.Answer(-1, tools.Answer{Text: "read b instead"}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)
	if got := nt.calls(); got != "a,a,a" {
		t.Fatalf("ran %q, want a,a,a (two, the stopped one skipped, then one after continuing)", got)
	}
	if err := r.llm.Err(); err != nil {
		t.Fatal(err)
	}
}
