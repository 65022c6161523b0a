package server_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/server/servertest"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

func command(line string) string {
	return "<execute_command>\n<command>" + line + "</command>\n<requires_approval>false</requires_approval>\n</execute_command>"
}

// TestManagedDenyInATask: in a whole task under --yolo, a managed deny beats the workspace's
// allow: the command does not run, nobody is asked, the chat shows the decision naming the
// managed file and the model is told; a deny-list command asks, and its approval card carries
// the same "why" line `cairn why` prints.
func TestManagedDenyInATask(t *testing.T) {
	dir := t.TempDir()
	managed := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(managed, []byte(`{"deny": [{"command": "touch denied"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	llm := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: command("touch denied")},
		{Text: command("git push --force")},
		{Text: complete},
	}})
	e := servertest.StartWith(t, llm, servertest.Options{
		Settings: func(s *config.Settings) {
			s.AutoApprove.YOLO = true
			s.SandboxOff = true // the machine's sandbox is not what this test is about
		},
		Policy: &policy.Sources{Managed: []string{managed}},
	})
	if err := os.MkdirAll(filepath.Join(e.Workspace, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Workspace, ".cairn", "policy.json"), []byte(`{"allow": [{"command": "touch"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.NewTask("try things", "", act)
	w := e.Watch(id)
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMMAND)
	if _, err := os.Stat(filepath.Join(e.Workspace, "denied")); err == nil {
		t.Fatal("the denied command ran")
	}
	var denied bool
	for _, m := range servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_ERROR) {
		denied = denied || strings.HasPrefix(m.GetText(), `deny — deny rule command "touch denied" of the managed policy (`+managed+`): denied`)
	}
	if !denied {
		t.Errorf("no chat row names the managed deny: %v", w.Messages())
	}
	if got := ask.GetCommand().GetCommand(); got != "git push --force" {
		t.Fatalf("asked about %q", got)
	}
	want := `ask — on the deny list ("git push --force", commandDenyList): always asked, even with --yolo`
	if lines := ask.GetWhy().GetLines(); len(lines) == 0 || lines[0] != want || ask.GetWhy().GetLocked() {
		t.Errorf("the approval's why: %q (locked %v), want %q", lines, ask.GetWhy().GetLocked(), want)
	}
	e.Answer(id, cairnv1.AskResponse_ASK_RESPONSE_REJECT, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if reqs := llm.Requests(); len(reqs) < 2 || !strings.Contains(reqs[1].LastUser(), "the policy files forbid it") {
		t.Errorf("the model was not told of the denial")
	}
}

// TestManagedYoloRefusedInATask: YOLO switched on in the settings under a managed
// "yoloAllowed": false does not run what it would; the approval card says why, naming the file.
func TestManagedYoloRefusedInATask(t *testing.T) {
	managed := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(managed, []byte(`{"yoloAllowed": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	llm := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: command("touch made")}, {Text: complete}}})
	e := servertest.StartWith(t, llm, servertest.Options{
		Settings: func(s *config.Settings) { s.AutoApprove.YOLO, s.SandboxOff = true, true },
		Policy:   &policy.Sources{Managed: []string{managed}},
	})
	id := e.NewTask("make a file", "", act)
	w := e.Watch(id)
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMMAND)
	note := "note: YOLO (autoApprove.yolo, --yolo) is refused: the managed policy " + managed + ` does not allow it ("yoloAllowed": false)`
	if lines := ask.GetWhy().GetLines(); !slices.Contains(lines, note) {
		t.Errorf("why %q lacks %q", lines, note)
	}
	e.Answer(id, cairnv1.AskResponse_ASK_RESPONSE_REJECT, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
}

// TestManagedSwitchesSayWhatTheyRefused: settings a managed switch refuses (the sandbox off,
// the network for auto-approved commands, YOLO) are turned off for the task, and its chat says
// so once, at the start, in notes naming each setting and the managed file.
func TestManagedSwitchesSayWhatTheyRefused(t *testing.T) {
	managed := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(managed, []byte(`{"sandboxRequired": true, "networkAllowed": false, "yoloAllowed": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	llm := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<list_files>\n<path>.</path>\n</list_files>"},
		{Text: complete},
	}})
	e := servertest.StartWith(t, llm, servertest.Options{
		Settings: func(s *config.Settings) { s.SandboxOff, s.SandboxNetwork, s.AutoApprove.YOLO = true, true, true },
		Policy:   &policy.Sources{Managed: []string{managed}},
	})
	id := e.NewTask("look around", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	msgs := w.Messages()
	firstRequest := slices.IndexFunc(msgs, func(m *cairnv1.Message) bool {
		return m.GetSay() == cairnv1.SayKind_SAY_KIND_API_REQ_STARTED
	})
	for _, want := range []string{
		"Running commands without the sandbox (sandboxDisabled, --no-sandbox) is refused: the managed policy " + managed + ` requires the command sandbox ("sandboxRequired": true)`,
		"The network for auto-approved commands (sandboxNetwork, --network) is refused: the managed policy " + managed + ` keeps auto-approved commands off the network ("networkAllowed": false)`,
		"YOLO (autoApprove.yolo, --yolo) is refused: the managed policy " + managed + ` does not allow it ("yoloAllowed": false)`,
	} {
		var at []int
		for i, m := range msgs {
			if m.GetSay() == cairnv1.SayKind_SAY_KIND_INFO && m.GetText() == want {
				at = append(at, i)
			}
		}
		if len(at) != 1 || at[0] > firstRequest {
			t.Errorf("the note %q is at rows %v (want once, before the first request at %d): %v", want, at, firstRequest, msgs)
		}
	}
}

// TestManagedModelsHoldEveryModel: a managed "models" list holds each way a task picks a
// model, not only the ACT model it starts with: a PLAN model in the settings that the list
// leaves out refuses a new task; a task of its own is refused another model mid-task (the chat's picker, ACP's model
// option); a mode that names its own model is not sent a request, the user is asked as after
// a failed request, with the policy named, and nothing reaches the model server.
func TestManagedModelsHoldEveryModel(t *testing.T) {
	managed := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(managed, []byte(`{"models": ["fake-model", "o1"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"reviewer.md": reviewModelMode}) // names grok-3-mini
	llm := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: complete, Expect: &llmtest.Expect{Model: "fake-model"}}}})
	e := servertest.StartWith(t, llm, servertest.Options{
		Workspace: ws,
		Settings:  func(s *config.Settings) { s.SandboxOff = true },
		Policy:    &policy.Sources{Managed: []string{managed}},
	})
	ctx := context.Background()

	planned := servertest.StartWith(t, llmtest.New(t, llmtest.Script{}), servertest.Options{
		Settings: func(s *config.Settings) { s.SandboxOff, s.API.PlanModel = true, "grok-3-mini" },
		Policy:   &policy.Sources{Managed: []string{managed}},
	})
	_, err := planned.Tasks.NewTask(ctx, &cairnv1.NewTaskRequest{Text: "plan it", WorkspaceRoots: []string{planned.Workspace}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "The model grok-3-mini is refused") {
		t.Errorf("a PLAN model the managed list leaves out: %v", err)
	}

	resp, err := e.Tasks.NewTask(ctx, &cairnv1.NewTaskRequest{Text: "do it", WorkspaceRoots: []string{ws},
		Overrides: &cairnv1.TaskOverrides{Model: "fake-model"}})
	if err != nil {
		t.Fatal(err)
	}
	own := resp.GetTaskId()
	w := e.Watch(own)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	_, err = e.Tasks.UpdateTaskSettings(ctx, &cairnv1.UpdateTaskSettingsRequest{TaskId: own, Model: "grok-3-mini"})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), managed) {
		t.Errorf("another model mid-task: %v", err)
	}
	if _, err := e.Tasks.UpdateTaskSettings(ctx, &cairnv1.UpdateTaskSettingsRequest{TaskId: own, Model: "o1"}); err != nil {
		t.Errorf("a listed model mid-task: %v", err)
	}

	id := newTaskIn(t, e, "review the change", "reviewer")
	rw := e.Watch(id)
	defer rw.Close()
	ask := rw.UntilAsk(cairnv1.AskKind_ASK_KIND_API_REQ_FAILED)
	if want := "The model grok-3-mini is refused: the managed policy " + managed; !strings.HasPrefix(ask.GetText(), want) {
		t.Errorf("the failed request's question: %q, want it to start %q", ask.GetText(), want)
	}
	if n := len(llm.Requests()); n != 1 {
		t.Errorf("%d requests reached the model server, want the first task's 1", n)
	}
}
