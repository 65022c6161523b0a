package server_test

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// A task stopped at its request limit shows requests and limits in its state; the header's
// SetTaskLimits raises the limit and the answer lets it go on.
func TestTaskLimitsOverRPC(t *testing.T) {
	list := llmtest.Turn{Text: "<list_files>\n<path>.</path>\n</list_files>"}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		list,
		{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.TaskLimits.MaxRequests = 1 }})
	id := e.NewTask("look", "", cairnv1.Mode_MODE_ACT)
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED)
	if st := w.State(); st.GetRequests() != 1 || st.GetLimits().GetMaxRequests() != 1 {
		t.Fatalf("state: %d requests, limit %d", st.GetRequests(), st.GetLimits().GetMaxRequests())
	}

	ctx := context.Background()
	_, err := e.Tasks.SetTaskLimits(ctx, &cairnv1.SetTaskLimitsRequest{TaskId: id, Limits: &cairnv1.TaskLimits{MaxCost: -1}})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("a negative limit: %v, want InvalidArgument", err)
	}
	if _, err := e.Tasks.SetTaskLimits(ctx, &cairnv1.SetTaskLimitsRequest{TaskId: id, Limits: &cairnv1.TaskLimits{MaxRequests: 5, MaxCost: 2}}); err != nil {
		t.Fatal(err)
	}
	w.Until("the raised limits", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetLimits().GetMaxRequests() == 5 && st.GetLimits().GetMaxCost() == 2
	})
	e.Answer(id, cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if st := w.State(); st.GetRequests() != 2 || st.GetLimits().GetMaxRequests() != 5 {
		t.Fatalf("after continuing: %d requests, limit %d (want 2 of 5)", st.GetRequests(), st.GetLimits().GetMaxRequests())
	}
}
