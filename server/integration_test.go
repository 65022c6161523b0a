package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

const (
	act  = cairnv1.Mode_MODE_ACT
	plan = cairnv1.Mode_MODE_PLAN
)

var (
	approve = cairnv1.AskResponse_ASK_RESPONSE_APPROVE
	reject  = cairnv1.AskResponse_ASK_RESPONSE_REJECT
	message = cairnv1.AskResponse_ASK_RESPONSE_MESSAGE
)

func writeFile(path, content string) string {
	return "I'll write it.\n<write_to_file>\n<path>" + path + "</path>\n<content>\n" + content + "</content>\n</write_to_file>"
}

const complete = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"

func lastUser(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("only %d requests, want #%d", len(reqs), i)
	}
	msgs := reqs[i].Messages
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j].Role == "user" {
			return msgs[j].Text
		}
	}
	return ""
}

func TestWriteFileApprovedThenCompleted(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("src/hello.txt", "hello\n"), ChunkSize: 9,
			Expect: &llmtest.Expect{LastUserContains: []string{"<task>\nsay hello\n</task>", "<environment_details>"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'src/hello.txt'] Result:", "successfully saved"}}},
	}}, servertest.Options{})
	host := e.ConnectHost()
	id := e.NewTask("say hello", host.ID, act)
	w := e.Watch(id)

	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	if ask.GetTool().GetOperation() != cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED || ask.GetTool().GetPath() != "src/hello.txt" {
		t.Fatalf("tool ask = %v", ask)
	}
	if _, err := os.Stat(filepath.Join(e.Workspace, "src", "hello.txt")); err != nil {
		t.Fatalf("the host should show the new file while its diff is open: %v", err)
	}
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	e.Answer(id, approve, "")
	w.UntilStatus(cairnv1.TaskStatus_TASK_STATUS_COMPLETED)

	got, err := os.ReadFile(filepath.Join(e.Workspace, "src", "hello.txt"))
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
	if opened, saved, _ := host.Counts(); opened != 1 || saved != 1 {
		t.Fatalf("host diffs opened=%d saved=%d", opened, saved)
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	// The streamed text reached the client in full.
	texts := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_TEXT)
	if len(texts) == 0 || texts[0].GetText() != "I'll write it." {
		t.Fatalf("text messages = %v", texts)
	}
}

func TestRejectWithFeedbackReachesModel(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "one\n")},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"denied", "<feedback>\nuse two instead\n</feedback>"}}},
	}}, servertest.Options{})
	id := e.NewTask("write a", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, reject, "use two instead")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := os.Stat(filepath.Join(e.Workspace, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a rejected new file must not exist: %v", err)
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if fb := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_USER_FEEDBACK); len(fb) != 1 || fb[0].GetText() != "use two instead" {
		t.Fatalf("user_feedback rows = %v", fb)
	}
}

func TestCancelMidStreamThenResume(t *testing.T) {
	long := strings.Repeat("streaming words ", 400)
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: long, ChunkSize: 16, Delay: llmtest.Duration(20 * time.Millisecond)},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"interrupted"}}},
	}}, servertest.Options{})
	id := e.NewTask("talk a lot", "", act)
	w := e.Watch(id)
	w.Until("some streamed text", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool {
		ts := servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_TEXT)
		return len(ts) > 0 && len(ts[0].GetText()) > 64
	})
	start := time.Now()
	if _, err := e.Tasks.CancelTask(context.Background(), &cairnv1.CancelTaskRequest{TaskId: id}); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
	stopped := time.Since(start)
	t.Logf("cancel → stream stopped and resume offered in %v", stopped)
	texts := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_TEXT)
	n := len(texts[0].GetText())
	if n >= len(strings.TrimSpace(long)) {
		t.Fatalf("the whole answer arrived (%d bytes): cancel did not stop the stream", n)
	}
	// No more text arrives after the cancel.
	snapshot := texts[0].GetText()
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if got := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_TEXT)[0].GetText(); got != snapshot {
		t.Fatalf("text grew after cancel: %d → %d bytes", len(snapshot), len(got))
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestNoToolNudgesThenMistakeLimit(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Just chatting."},
		{Text: "Still chatting.", Expect: &llmtest.Expect{LastUserContains: []string{"attempt_completion"}}},
		{Text: "More chatting."},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"try harder"}}},
	}}, servertest.Options{})
	id := e.NewTask("do something", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED)
	if n := len(e.LLM.Requests()); n != 3 {
		t.Fatalf("requests before the mistake limit = %d, want 3", n)
	}
	e.Answer(id, message, "try harder")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestPlanModeRefusesEditsAndCommands(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("x.txt", "x\n")},
		{Text: "<execute_command>\n<command>touch made-it</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'x.txt'] Result:", "PLAN MODE"}}},
		{Text: "<plan_mode_respond>\n<response>Here is the plan.</response>\n</plan_mode_respond>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[execute_command for 'touch made-it'] Result:", "PLAN MODE"}}},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.AutoApprove.YOLO = true }})
	id := e.NewTask("plan it", "", plan)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND)
	for _, f := range []string{"x.txt", "made-it"} {
		if _, err := os.Stat(filepath.Join(e.Workspace, f)); !os.IsNotExist(err) {
			t.Fatalf("%s exists after PLAN mode: %v", f, err)
		}
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	// Switching to ACT answers the open plan question.
	e.LLM.SetScript(llmtest.Script{Turns: []llmtest.Turn{{Text: complete,
		Expect: &llmtest.Expect{LastUserContains: []string{"ACT MODE"}}}}})
	if _, err := e.State.SetMode(context.Background(), &cairnv1.SetModeRequest{TaskId: id, Mode: act}); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestDenyListAskedEvenWithAllCommands(t *testing.T) {
	cmd := "<execute_command>\n<command>rm -rf build</command>\n<requires_approval>false</requires_approval>\n</execute_command>"
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<execute_command>\n<command>echo safe-ran</command>\n<requires_approval>true</requires_approval>\n</execute_command>"},
		{Text: cmd, Expect: &llmtest.Expect{LastUserContains: []string{"safe-ran"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"denied"}}},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.AutoApprove.AllCommands = true }})
	if err := os.MkdirAll(filepath.Join(e.Workspace, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := e.NewTask("clean", "", act)
	w := e.Watch(id)
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMMAND)
	if ask.GetCommand().GetCommand() != "rm -rf build" {
		t.Fatalf("asked about %q; the auto-approved echo must not be asked", ask.GetCommand().GetCommand())
	}
	e.Answer(id, reject, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := os.Stat(filepath.Join(e.Workspace, "build")); err != nil {
		t.Fatalf("build/ was removed: %v", err)
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestUnauthenticated(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{})
	for name, token := range map[string]string{"no token": "", "wrong token": strings.Repeat("0", 64)} {
		t.Run(name, func(t *testing.T) {
			conn, err := servertest.Dial(e.Daemon.Handshake().Address, token)
			if err != nil {
				t.Fatal(err)
			}
			defer mustClose(t, conn)
			_, err = cairnv1.NewStateServiceClient(conn).GetState(context.Background(), &cairnv1.GetStateRequest{})
			if status.Code(err) != codes.Unauthenticated {
				t.Fatalf("GetState err = %v, want Unauthenticated", err)
			}
			stream, err := cairnv1.NewUiServiceClient(conn).Subscribe(context.Background(), &cairnv1.SubscribeRequest{TaskId: "x"})
			if err == nil {
				_, err = stream.Recv()
			}
			if status.Code(err) != codes.Unauthenticated {
				t.Fatalf("Subscribe err = %v, want Unauthenticated", err)
			}
		})
	}
	// The socket is private.
	sock := strings.TrimPrefix(e.Daemon.Handshake().Address, "unix://")
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, %v", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(e.Daemon.Handshake().TokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode = %v, %v", fi.Mode().Perm(), err)
	}
}

func TestTwoTasksConcurrently(t *testing.T) {
	// Each task writes its own file; the fake model answers by the task text it sees.
	turn := func(name string) []llmtest.Turn {
		return []llmtest.Turn{{Text: writeFile(name+".txt", name+"\n"), ChunkSize: 5, Delay: llmtest.Duration(time.Millisecond)}}
	}
	srvA := llmtest.New(t, llmtest.Script{Turns: append(turn("alpha"), llmtest.Turn{Text: complete})})
	srvB := llmtest.New(t, llmtest.Script{Turns: append(turn("beta"), llmtest.Turn{Text: complete})})
	e := servertest.StartWith(t, srvA, servertest.Options{Settings: func(s *config.Settings) { s.AutoApprove.EditFiles = true }})
	idA := e.NewTask("task alpha", "", act)
	// Point new tasks at the second model: settings apply to tasks started afterwards.
	st, _ := e.State.GetState(context.Background(), &cairnv1.GetStateRequest{})
	st.GetSettings().GetApi().BaseUrl = srvB.URL()
	if _, err := e.State.UpdateSettings(context.Background(), &cairnv1.UpdateSettingsRequest{Settings: st.GetSettings()}); err != nil {
		t.Fatal(err)
	}
	idB := e.NewTask("task beta", "", act)
	wA, wB := e.Watch(idA), e.Watch(idB)
	wA.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	wB.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	for name, want := range map[string]string{"alpha.txt": "alpha\n", "beta.txt": "beta\n"} {
		got, err := os.ReadFile(filepath.Join(e.Workspace, name))
		if err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v", name, got, err)
		}
	}
	for _, w := range []*servertest.Watch{wA, wB} {
		for _, m := range w.Messages() {
			if m.GetSay() == cairnv1.SayKind_SAY_KIND_TASK && !strings.HasPrefix(m.GetText(), "task ") {
				t.Fatalf("foreign message %v", m)
			}
		}
	}
	if len(srvA.Requests()) != 2 || len(srvB.Requests()) != 2 {
		t.Fatalf("requests: A=%d B=%d", len(srvA.Requests()), len(srvB.Requests()))
	}
}

// TestDeltasAreLinear proves the subscription sends appended text, not the whole message:
// a 100 KB answer costs about 100 KB on the wire, and a task with 2,000 earlier messages costs
// the same per chunk as a fresh one.
func TestDeltasAreLinear(t *testing.T) {
	answer := strings.Repeat("0123456789abcdefghij", 5000) // 100 KB, no tags
	script := func() llmtest.Script {
		return llmtest.Script{Turns: []llmtest.Turn{{Text: answer, ChunkSize: 20}, {Text: complete}}}
	}
	measure := func(e *servertest.Env, id string, resume bool) (textBytes, total int) {
		w := e.Watch(id)
		if resume {
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
			e.Answer(id, approve, "")
		}
		w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
		w.Close()
		w.Until("done", func([]*cairnv1.Message, *cairnv1.TaskState) bool { return true })
		for _, ev := range wHistory(w) {
			switch x := ev.Event.(type) {
			case *cairnv1.SubscribeResponse_TextAppended:
				textBytes += proto.Size(ev)
			case *cairnv1.SubscribeResponse_MessageAdded:
				if x.MessageAdded.GetMessage().GetSay() == cairnv1.SayKind_SAY_KIND_TEXT {
					textBytes += proto.Size(ev)
				}
			case *cairnv1.SubscribeResponse_MessageUpdated:
				if x.MessageUpdated.GetMessage().GetSay() == cairnv1.SayKind_SAY_KIND_TEXT {
					textBytes += proto.Size(ev)
				}
			}
			if _, snap := ev.Event.(*cairnv1.SubscribeResponse_Snapshot); !snap {
				total += proto.Size(ev)
			}
		}
		return textBytes, total
	}

	e := servertest.Start(t, script(), servertest.Options{})
	fresh, freshTotal := measure(e, e.NewTask("fresh", "", act), false)
	t.Logf("fresh task: %d bytes of text events for a %d-byte answer (%.2f×); %d bytes of events in all", fresh, len(answer),
		float64(fresh)/float64(len(answer)), freshTotal)
	if fresh > 2*len(answer) {
		t.Fatalf("text events = %d bytes for a %d-byte answer: more than 2×", fresh, len(answer))
	}

	// A task with 2,000 earlier messages, written to the store directly, then resumed.
	dataDir := t.TempDir()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ws := t.TempDir()
	log, err := st.Create(store.Meta{ID: "long-task", Title: "long", Workspace: []string{ws}, Created: now, Updated: now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		kind := msg.SayText
		if i == 0 {
			kind = msg.SayTask
		}
		if err := log.AppendMessage(msg.Message{Index: i, Time: now, Type: msg.Say, Kind: kind, Text: fmt.Sprintf("earlier message %d", i)}, false); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, log)
	e2 := servertest.Start(t, script(), servertest.Options{DataDir: dataDir, Workspace: ws})
	if _, err := e2.Tasks.ResumeTask(context.Background(), &cairnv1.ResumeTaskRequest{TaskId: "long-task"}); err != nil {
		t.Fatal(err)
	}
	long, _ := measure(e2, "long-task", true)
	t.Logf("task with 2,000 messages: %d bytes of text events (fresh: %d)", long, fresh)
	if diff := long - fresh; diff > fresh/10 || diff < -fresh/10 {
		t.Fatalf("text events differ: %d bytes with 2,000 earlier messages vs %d fresh", long, fresh)
	}
}

func wHistory(w *servertest.Watch) []*cairnv1.SubscribeResponse { return w.History() }
