package server_test

import (
	"context"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// reviewModelMode is a read-only mode answered by a model of its own with a reasoning effort
// of its own (docs/modes.md, "A mode's model"). Both models take a reasoning effort (the model
// table), so the request shows which effort was sent.
const reviewModelMode = `---
name: Reviewer
description: Reviewing changes without touching them.
groups: [read]
model: grok-3-mini
reasoningEffort: high
---
Say what is wrong; change nothing.
`

// modeModelSettings: the task's ACT model and effort, and a PLAN model of its own.
func modeModelSettings(s *config.Settings) {
	s.API.Model = "o1"
	s.API.PlanModel = "deep-thinker"
	s.API.ReasoningEffort = "low"
	s.AutoApprove.YOLO = true
}

// asked lists each request's model and reasoning effort.
func asked(reqs []llmtest.Request) string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.Model + "/" + r.ReasoningEffort
	}
	return strings.Join(out, " ")
}

// TestModeModelAnswersItsRequests: a task in a mode that names a model sends its requests to
// that model with the mode's effort, and the header names it; switched to PLAN and then ACT,
// its requests go to the task's PLAN model and to its ACT model with the settings' effort.
func TestModeModelAnswersItsRequests(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"reviewer.md": reviewModelMode})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<attempt_completion>\n<result>Looks right.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{Model: "grok-3-mini", Contains: []string{"You are in the Reviewer mode (reviewer)."}}},
		{Text: "<plan_mode_respond>\n<response>Here is the plan.</response>\n</plan_mode_respond>",
			Expect: &llmtest.Expect{Model: "deep-thinker"}},
		{Text: complete, Expect: &llmtest.Expect{Model: "o1"}},
	}}, servertest.Options{Workspace: ws, Settings: modeModelSettings})
	id := newTaskIn(t, e, "review the change", "reviewer")
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if got := w.State().GetModel(); got != "grok-3-mini" {
		t.Errorf("header model in the reviewer mode: %q", got)
	}
	if _, err := e.State.SetMode(context.Background(), &cairnv1.SetModeRequest{TaskId: id, Mode: plan}); err != nil {
		t.Fatal(err)
	}
	e.Answer(id, message, "now plan the fix")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND)
	if _, err := e.State.SetMode(context.Background(), &cairnv1.SetModeRequest{TaskId: id, Mode: act}); err != nil {
		t.Fatal(err)
	}
	w.Until("the task completes in ACT", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return len(e.LLM.Requests()) == 3 && st.GetModel() == "o1"
	})
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	// deep-thinker is not in the model table: it takes no effort, so none is sent.
	if got, want := asked(e.LLM.Requests()), "grok-3-mini/high deep-thinker/ o1/low"; got != want {
		t.Fatalf("asked %s, want %s", got, want)
	}
}

// TestDelegatedSubtaskUsesModeModel: a subtask delegated to a mode that names a model asks
// that model with the mode's effort; its parent keeps the task's model and effort.
func TestDelegatedSubtaskUsesModeModel(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"reviewer.md": reviewModelMode})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<delegate>\n<mode>reviewer</mode>\n<message>Review the change.</message>\n</delegate>",
			Expect: &llmtest.Expect{Model: "o1"}},
		{Text: "<attempt_completion>\n<result>The change looks right.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{Model: "grok-3-mini", Contains: []string{"You are in the Reviewer mode (reviewer)."}}},
		{Text: complete, Expect: &llmtest.Expect{Model: "o1", LastUserContains: []string{"The change looks right."}}},
	}}, servertest.Options{Workspace: ws, Settings: modeModelSettings})
	id := newTaskIn(t, e, "have the change reviewed", "orchestrator")
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := asked(e.LLM.Requests()), "o1/low grok-3-mini/high o1/low"; got != want {
		t.Fatalf("asked %s, want %s", got, want)
	}
}
