package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestTaskOverridesRunSideBySide: two tasks on one daemon at the same time, one with settings
// of its own (another model, edits approved) and one on the shared settings. Each request goes
// to its task's model, each edit is approved by its task's policy, and the shared settings stay
// as they were; the task's own settings survive a resume, and the chat's controls change them
// for that task only.
func TestTaskOverridesRunSideBySide(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Routes: []llmtest.Route{
		{FirstUserContains: "[own]", Turns: []llmtest.Turn{
			{Text: writeFile("own.txt", "mine\n"), Expect: &llmtest.Expect{Model: "alpha"}},
			{Text: complete, Expect: &llmtest.Expect{Model: "alpha"}},
			{Text: complete, Expect: &llmtest.Expect{Model: "beta"}},
		}},
		{FirstUserContains: "[shared]", Turns: []llmtest.Turn{
			{Text: writeFile("shared.txt", "ours\n"), Expect: &llmtest.Expect{Model: "shared-model"}},
			{Text: complete, Expect: &llmtest.Expect{Model: "shared-model"}},
		}},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.API.Model = "shared-model" }})
	ctx := context.Background()
	before, err := e.State.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}

	// The shared task asks before its edit; the other runs its edit through meanwhile.
	shared := e.NewTask("[shared] write shared.txt", "", act)
	sw := e.Watch(shared)
	defer sw.Close()
	sw.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)

	resp, err := e.Tasks.NewTask(ctx, &cairnv1.NewTaskRequest{Text: "[own] write own.txt", WorkspaceRoots: []string{e.Workspace},
		Overrides: &cairnv1.TaskOverrides{Model: "alpha", AutoApprove: []string{"edit"}, MaxRequests: 9}})
	if err != nil {
		t.Fatal(err)
	}
	own := resp.GetTaskId()
	ow := e.Watch(own)
	defer ow.Close()
	ow.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if b, err := os.ReadFile(filepath.Join(e.Workspace, "own.txt")); err != nil || string(b) != "mine\n" {
		t.Fatalf("the own-policy edit did not run without asking: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.Workspace, "shared.txt")); err == nil {
		t.Fatal("the shared task's edit ran without its approval")
	}
	st := ow.State()
	if !st.GetOwnSettings() || st.GetModel() != "alpha" || !st.GetAutoApprove().GetEditFiles() || st.GetLimits().GetMaxRequests() != 9 {
		t.Errorf("own task's header: own=%v model=%q policy=%v limits=%v", st.GetOwnSettings(), st.GetModel(), st.GetAutoApprove(), st.GetLimits())
	}
	if ss := sw.State(); ss.GetOwnSettings() || ss.GetModel() != "shared-model" || ss.GetAutoApprove().GetEditFiles() {
		t.Errorf("shared task's header: own=%v model=%q policy=%v", ss.GetOwnSettings(), ss.GetModel(), ss.GetAutoApprove())
	}
	e.Answer(shared, cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
	sw.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)

	// The shared policy changes: the task with its own keeps its own.
	noEdits := proto2AutoApprove(before.GetSettings().GetAutoApprove())
	noEdits.ReadFiles = false
	if _, err := e.State.UpdateAutoApprove(ctx, &cairnv1.UpdateAutoApproveRequest{AutoApprove: noEdits}); err != nil {
		t.Fatal(err)
	}
	ow.Until("the own policy stays", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetAutoApprove().GetEditFiles() && st.GetAutoApprove().GetReadFiles()
	})
	sw.Until("the shared task follows the shared policy", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return !st.GetAutoApprove().GetReadFiles()
	})

	after, err := e.State.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if a := after.GetSettings().GetApi(); a.GetModel() != "shared-model" || after.GetSettings().GetAutoApprove().GetEditFiles() {
		t.Errorf("the shared settings changed: model %q, edits %v", a.GetModel(), after.GetSettings().GetAutoApprove().GetEditFiles())
	}

	// The chat's picker changes the own task's model; a shared task refuses such a change.
	if _, err := e.Tasks.UpdateTaskSettings(ctx, &cairnv1.UpdateTaskSettingsRequest{TaskId: own, Model: "beta"}); err != nil {
		t.Fatal(err)
	}
	ow.Until("the header names the new model", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool { return st.GetModel() == "beta" })
	_, err = e.Tasks.UpdateTaskSettings(ctx, &cairnv1.UpdateTaskSettingsRequest{TaskId: shared, Model: "beta"})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("a task on the shared settings took its own model: %v", err)
	}

	// Closed and resumed, the task keeps its own settings (the key alone is not saved).
	if _, err := e.Tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: own}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: own}); err != nil {
		t.Fatal(err)
	}
	rw := e.Watch(own)
	defer rw.Close()
	rw.Until("the resumed task keeps its settings", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetOwnSettings() && st.GetModel() == "beta" && st.GetAutoApprove().GetEditFiles() && st.GetLimits().GetMaxRequests() == 9
	})
	rw.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK)
	e.Answer(own, cairnv1.AskResponse_ASK_RESPONSE_MESSAGE, "once more")
	rw.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

// A flag with a bad value is refused with the reason, never ignored.
func TestTaskOverridesRefuseBadValues(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{})
	for _, o := range []*cairnv1.TaskOverrides{
		{ToolFormat: "json"}, {ReasoningEffort: "max"}, {AutoApprove: []string{"everything"}}, {MaxCost: -1},
	} {
		_, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "x", WorkspaceRoots: []string{e.Workspace}, Overrides: o})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("%v: %v", o, err)
		}
	}
}

func proto2AutoApprove(a *cairnv1.AutoApprove) *cairnv1.AutoApprove {
	return &cairnv1.AutoApprove{Enabled: a.GetEnabled(), ReadFiles: a.GetReadFiles(), SafeCommands: a.GetSafeCommands(),
		MaxRequests: a.GetMaxRequests(), CommandDenyList: a.GetCommandDenyList()}
}
