package acp_test

import (
	"context"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// Replies cut off at the model's output limit are retried by the task until its mistake
// limit; the turn then ends with max_tokens, and the next prompt goes on (answering the
// task's question) to an ordinary end_turn.
func TestOutputLimitEndsWithMaxTokens(t *testing.T) {
	cut := llmtest.Turn{Text: "A very long answer that never ends", FinishReason: "length"}
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{cut, cut, cut,
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"shorter please"}}},
	}}, "allow_once")
	if r := h.prompt(t, sdk.TextBlock("write a novel")); r != sdk.StopReasonMaxTokens {
		t.Fatalf("turn ended with %q, want max_tokens", r)
	}
	if r := h.prompt(t, sdk.TextBlock("shorter please")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn after max_tokens ended with %q", r)
	}
	h.llmOK(t)
}

// A request limit of the task (here one request, as `cairn acp --connect --max-requests 1`
// sets it) stops the task before its next request: the turn ends with max_turn_requests.
func TestRequestLimitEndsWithMaxTurnRequests(t *testing.T) {
	ed := &editor{choose: "allow_once", changed: make(chan struct{}, 1)}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<list_files>\n<path>.</path>\n</list_files>"},
		{Text: complete},
	}}, servertest.Options{})
	h := connectAs(t, e, ed, ed, sdk.ClientCapabilities{}, &cairnv1.TaskOverrides{MaxRequests: 1})
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	if r := h.prompt(t, sdk.TextBlock("look around")); r != sdk.StopReasonMaxTurnRequests {
		t.Fatalf("turn ended with %q, want max_turn_requests", r)
	}
	if n := len(e.LLM.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
}

// The session offers its model as a config option (category model); choosing another one
// before the first prompt makes it the task's model, and choosing again while the task runs
// switches the task's next request. The shared settings keep their model.
func TestSessionModelIsTheTasksOwn(t *testing.T) {
	ed := &editor{choose: "allow_once", changed: make(chan struct{}, 1)}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<ask_followup_question>\n<question>Which one?</question>\n</ask_followup_question>",
			Expect: &llmtest.Expect{Model: "picked-model"}},
		{Text: complete, Expect: &llmtest.Expect{Model: "another-model"}},
	}}, servertest.Options{})
	h := connectAs(t, e, ed, ed, sdk.ClientCapabilities{}, nil)
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	st, err := e.State.GetState(context.Background(), &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	shared := st.GetSettings().GetApi().GetModel()
	// The model, then the "done when" check (none yet).
	if len(s.ConfigOptions) != 2 || s.ConfigOptions[0].Select == nil || s.ConfigOptions[0].Select.Id != "model" ||
		string(s.ConfigOptions[0].Select.CurrentValue) != shared || s.ConfigOptions[1].Select == nil ||
		s.ConfigOptions[1].Select.Id != "doneWhen" || s.ConfigOptions[1].Select.CurrentValue != "none" {
		t.Fatalf("config options = %+v, want the model %q", s.ConfigOptions, shared)
	}
	pick := func(m string) {
		t.Helper()
		r, err := h.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: h.sid, ConfigId: "model", Value: sdk.SessionConfigValueId(m)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.ConfigOptions) != 2 || string(r.ConfigOptions[0].Select.CurrentValue) != m {
			t.Fatalf("after choosing %s: %+v", m, r.ConfigOptions)
		}
	}
	pick("picked-model")
	if r := h.prompt(t, sdk.TextBlock("pick one")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	pick("another-model")
	if r := h.prompt(t, sdk.TextBlock("the first")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	st, err = e.State.GetState(context.Background(), &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetSettings().GetApi().GetModel() != shared {
		t.Errorf("the shared model changed to %q", st.GetSettings().GetApi().GetModel())
	}
	h.llmOK(t)
}

// The session's "done when" option (README, "Done when") set before the first prompt is its
// task's check: the first completion is refused with the check's output, the second accepted;
// once the task runs, the option is refused.
func TestSessionDoneWhen(t *testing.T) {
	ed := &editor{choose: "allow_once", changed: make(chan struct{}, 1)}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: complete},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"The completion was refused", "checked-by-cairn"}}},
	}}, servertest.Options{})
	h := connectAs(t, e, ed, ed, sdk.ClientCapabilities{}, nil)
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	// It fails the first time (leaving a mark) and passes after.
	check := "test -f .checked || { touch .checked; echo checked-by-cairn; exit 1; }"
	set := func() error {
		_, err := h.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: h.sid, ConfigId: "doneWhen", Value: sdk.SessionConfigValueId(check)}})
		return err
	}
	if err := set(); err != nil {
		t.Fatal(err)
	}
	if r := h.prompt(t, sdk.TextBlock("finish")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	if err := set(); err == nil {
		t.Error("the check changed while the task runs")
	}
	h.llmOK(t)
}
