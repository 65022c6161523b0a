package server_test

import (
	"context"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestPlanModelAnswersPlanRequests: with a PLAN model set, PLAN requests go to it and the task
// header names it; after switching to ACT, requests go to the ACT model and the header follows.
func TestPlanModelAnswersPlanRequests(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<plan_mode_respond>\n<response>Here is the plan.</response>\n</plan_mode_respond>",
			Expect: &llmtest.Expect{Model: "deep-thinker"}},
	}}, servertest.Options{Settings: func(s *config.Settings) {
		s.API.Model = "quick-coder"
		s.API.PlanModel = "deep-thinker"
	}})
	id := e.NewTask("plan it", "", plan)
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND)
	if got := w.State().GetModel(); got != "deep-thinker" {
		t.Errorf("header model in PLAN: %q", got)
	}
	e.LLM.SetScript(llmtest.Script{Turns: []llmtest.Turn{{Text: complete, Expect: &llmtest.Expect{Model: "quick-coder"}}}})
	if _, err := e.State.SetMode(context.Background(), &cairnv1.SetModeRequest{TaskId: id, Mode: act}); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	reqs := e.LLM.Requests()
	if len(reqs) != 2 || reqs[0].Model != "deep-thinker" || reqs[1].Model != "quick-coder" {
		t.Fatalf("models asked: %v", []string{reqs[0].Model, reqs[len(reqs)-1].Model})
	}
	w.Until("the header names the ACT model", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetModel() == "quick-coder"
	})
}
