package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// hang is a turn that starts a reply and then sends nothing more: the task stays running with
// no question open until it is cancelled.
var hang = llmtest.Turn{Text: "Thinking about it.", Fault: &llmtest.Fault{At: 5, Hang: true}}

func sendText(t *testing.T, e *servertest.Env, id, text string) *cairnv1.SendMessageResponse {
	t.Helper()
	r, err := e.Tasks.SendMessage(context.Background(), &cairnv1.SendMessageRequest{TaskId: id, Text: text})
	if err != nil {
		t.Fatalf("SendMessage(%q): %v", text, err)
	}
	return r
}

func feedbackTexts(msgs []*cairnv1.Message) []string {
	var out []string
	for _, m := range servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_USER_FEEDBACK) {
		out = append(out, m.GetText())
	}
	return out
}

func queuedTexts(st *cairnv1.TaskState) []string {
	var out []string
	for _, q := range st.GetQueued() {
		out = append(out, q.GetText())
	}
	return out
}

// A message sent while the task runs waits in the queue, shown in the state, and goes to the
// model as feedback when the step ends.
func TestQueuedMessageGoesAtStepEnd(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		// The command runs until the test creates the file "go": the step ends only then.
		{Text: "Waiting.\n<execute_command>\n<command>while [ ! -f go ]; do sleep 0.02; done; echo went</command>\n" +
			"<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"<feedback>\nalso check b\n</feedback>"}}},
	}}, servertest.Options{})
	id := e.NewTask("wait for go", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMMAND)
	e.Answer(id, approve, "")
	w.Until("the command to run", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetOpenAskIndex() < 0 && st.GetStatus() == cairnv1.TaskStatus_TASK_STATUS_RUNNING
	})
	if r := sendText(t, e, id, "also check b"); !r.GetQueued() {
		t.Fatalf("a message sent while the task runs was not queued")
	}
	if err := os.WriteFile(filepath.Join(e.Workspace, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if got := feedbackTexts(w.Messages()); len(got) != 1 || got[0] != "also check b" {
		t.Fatalf("feedback rows %q, want the queued message once", got)
	}
	if q := queuedTexts(w.State()); len(q) != 0 {
		t.Fatalf("queue %q after it was sent", q)
	}
	// The state showed the message while it waited.
	seen := false
	for _, ev := range w.History() {
		if st := ev.GetStateChanged(); st != nil && len(st.GetQueued()) == 1 && st.GetQueued()[0].GetText() == "also check b" {
			seen = true
		}
	}
	if !seen {
		t.Fatal("no state showed the queued message")
	}
}

// Interrupting a running task sends what is queued (instead of asking to resume); a message
// taken back before that is not sent.
func TestInterruptSendsQueued(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		hang,
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"use tabs"}, NotContains: []string{"never mind"}}},
	}}, servertest.Options{})
	id := e.NewTask("format it", "", act)
	w := e.Watch(id)
	w.Until("the reply to start", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool {
		return len(servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_TEXT)) > 0
	})
	sendText(t, e, id, "never mind")
	sendText(t, e, id, "use tabs")
	w.Until("two queued", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool { return len(st.GetQueued()) == 2 })
	first := w.State().GetQueued()[0]
	if _, err := e.Tasks.RemoveQueuedMessage(context.Background(), &cairnv1.RemoveQueuedMessageRequest{TaskId: id, Id: first.GetId()}); err != nil {
		t.Fatal(err)
	}
	_, err := e.Tasks.RemoveQueuedMessage(context.Background(), &cairnv1.RemoveQueuedMessageRequest{TaskId: id, Id: first.GetId()})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("removing it twice: %v, want InvalidArgument", err)
	}
	if q := queuedTexts(w.State()); len(q) != 1 || q[0] != "use tabs" {
		w.Until("one queued", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool { return len(st.GetQueued()) == 1 })
	}
	if _, err := e.Tasks.CancelTask(context.Background(), &cairnv1.CancelTaskRequest{TaskId: id}); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	msgs := w.Messages()
	if got := feedbackTexts(msgs); len(got) != 1 || got[0] != "use tabs" {
		t.Fatalf("feedback rows %q, want the one message left in the queue", got)
	}
	for _, m := range msgs {
		if m.GetAsk() == cairnv1.AskKind_ASK_KIND_RESUME_TASK {
			t.Fatalf("the interrupt asked to resume although a message was queued: %v", m)
		}
	}
}

// Editing a past message goes back to the checkpoint before it (files and conversation) and
// sends the new text; the old message and what followed are gone, also from the model's view.
func TestEditMessageRPC(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "one\n")},
		{Text: complete},
		{Text: writeFile("b.txt", "two\n")},
		{Text: complete},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"make c instead"}, NotContains: []string{"make b"}}},
	}}, servertest.Options{})
	seed(t, e, "a.txt", "orig\n", 0o644)
	host := e.ConnectHost()
	id := e.NewTask("write a", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	sendText(t, e, id, "make b")
	w.Until("the b.txt ask", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
		i := int(st.GetOpenAskIndex())
		return i >= 0 && i < len(msgs) && msgs[i].GetTool().GetPath() == "b.txt"
	})
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if got := readOr(t, filepath.Join(e.Workspace, "b.txt")); got != "two\n" {
		t.Fatalf("b.txt = %q before the edit", got)
	}
	var edited *cairnv1.Message
	for _, m := range servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_USER_FEEDBACK) {
		if m.GetText() == "make b" {
			edited = m
		}
	}
	if edited == nil {
		t.Fatal("no feedback row to edit")
	}

	tests := []struct {
		name  string
		index *int32
		code  codes.Code
	}{
		{"no index", nil, codes.InvalidArgument},
		{"not a user message", proto.Int32(edited.GetIndex() - 1), codes.InvalidArgument},
		{"past the end", proto.Int32(9999), codes.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Tasks.EditMessage(context.Background(), &cairnv1.EditMessageRequest{TaskId: id, MessageIndex: tt.index, Text: "x"})
			if status.Code(err) != tt.code {
				t.Fatalf("EditMessage: %v, want %v", err, tt.code)
			}
		})
	}

	if _, err := e.Tasks.EditMessage(context.Background(), &cairnv1.EditMessageRequest{TaskId: id,
		MessageIndex: proto.Int32(edited.GetIndex()), Text: "make c instead"}); err != nil {
		t.Fatal(err)
	}
	w.Until("the edited run's completion", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
		i := int(st.GetOpenAskIndex())
		return i >= 0 && i < len(msgs) && msgs[i].GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT &&
			strings.Contains(strings.Join(feedbackTexts(msgs), "|"), "make c instead")
	})
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if got := readOr(t, filepath.Join(e.Workspace, "b.txt")); got != "<none>" {
		t.Errorf("b.txt = %q after editing the message that made it", got)
	}
	if got := readOr(t, filepath.Join(e.Workspace, "a.txt")); got != "one\n" {
		t.Errorf("a.txt = %q, want the checkpoint's one", got)
	}
	if got := feedbackTexts(w.Messages()); len(got) != 1 || got[0] != "make c instead" {
		t.Fatalf("feedback rows %q, want only the edited one", got)
	}
}

// A message queued while a command ran went to the model with the command's result; editing
// it goes back to the checkpoint after the command, and the old words leave the model's view
// too (they were in the message that checkpoint keeps).
func TestEditQueuedMessage(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Waiting.\n<execute_command>\n<command>while [ ! -f go ]; do sleep 0.02; done; echo went</command>\n" +
			"<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"went", "also check b"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"check c instead"}, NotContains: []string{"also check b"}}},
	}}, servertest.Options{})
	host := e.ConnectHost()
	id := e.NewTask("wait for go", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMMAND)
	e.Answer(id, approve, "")
	w.Until("the command to run", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetOpenAskIndex() < 0 && st.GetStatus() == cairnv1.TaskStatus_TASK_STATUS_RUNNING
	})
	if r := sendText(t, e, id, "also check b"); !r.GetQueued() {
		t.Fatalf("a message sent while the task runs was not queued")
	}
	if err := os.WriteFile(filepath.Join(e.Workspace, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	rows := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_USER_FEEDBACK)
	if len(rows) != 1 {
		t.Fatalf("feedback rows %v, want the queued one", rows)
	}
	if _, err := e.Tasks.EditMessage(context.Background(), &cairnv1.EditMessageRequest{TaskId: id,
		MessageIndex: proto.Int32(rows[0].GetIndex()), Text: "check c instead"}); err != nil {
		t.Fatal(err)
	}
	w.Until("the edited run's completion", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
		i := int(st.GetOpenAskIndex())
		return i >= 0 && i < len(msgs) && msgs[i].GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT &&
			strings.Contains(strings.Join(feedbackTexts(msgs), "|"), "check c instead")
	})
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}
