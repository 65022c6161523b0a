package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// Decisions made in the editor (Save/Reject on a diff view) and the editor a task works
// through: the real daemon, the fake model, and fake editors on the real bridge stream.

const askGoOn = "<ask_followup_question>\n<question>Go on?</question>\n</ask_followup_question>"

// openAsk returns the index and kind of a task's open ask (-1 when none).
func openAsk(w *servertest.Watch) (int32, cairnv1.AskKind) {
	st := w.State()
	i := st.GetOpenAskIndex()
	if i < 0 {
		return i, cairnv1.AskKind_ASK_KIND_UNSPECIFIED
	}
	msgs := w.Messages()
	if int(i) >= len(msgs) || msgs[i] == nil {
		return i, cairnv1.AskKind_ASK_KIND_UNSPECIFIED
	}
	return i, msgs[i].GetAsk()
}

func fileIs(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if string(got) != want {
		t.Fatalf("%s = %q, want %q", path, got, want)
	}
}

// Two tasks of one window each wait on their edit approval; Save on one task's diff answers
// that task alone, and Reject on the other's diff answers the other.
func TestEditorDecisionReachesTheTaskOwningTheDiff(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "from A\n")},
		{Text: writeFile("b.txt", "from B\n")},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'b.txt'] Result:", "successfully saved"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'a.txt'] Result:", "The user denied this change to a.txt."}}},
	}}, servertest.Options{})
	host := e.ConnectHostAs("window-1")
	a := e.NewTask("write a", host.ID, act)
	wa := e.Watch(a)
	askA := wa.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	b := e.NewTask("write b", host.ID, act)
	wb := e.Watch(b)
	wb.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)

	pathA, pathB := filepath.Join(e.Workspace, "a.txt"), filepath.Join(e.Workspace, "b.txt")
	sessA, sessB := host.Session(pathA), host.Session(pathB)
	if sessA == "" || sessB == "" || sessA == sessB {
		t.Fatalf("diff sessions a=%q b=%q", sessA, sessB)
	}
	host.Decide(sessB, true)
	wb.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	fileIs(t, pathB, "from B\n")
	if i, kind := openAsk(wa); i != askA.GetIndex() || kind != cairnv1.AskKind_ASK_KIND_TOOL {
		t.Fatalf("task A's open ask = #%d %v after Save on B's diff; want its edit approval #%d still open", i, kind, askA.GetIndex())
	}
	if host.Session(pathA) != sessA {
		t.Fatal("task A's diff view was closed by Save on B's diff")
	}

	host.Decide(sessA, false)
	wa.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := os.Stat(pathA); !os.IsNotExist(err) {
		t.Fatalf("a.txt after Reject: %v, want no file", err)
	}
	llmOK(t, e)
}

// A window can decide only on the diffs it shows: another window naming the session is ignored.
func TestEditorDecisionFromAnotherWindowIsIgnored(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "window one\n")},
		{Text: writeFile("c.txt", "window two\n")},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'c.txt'] Result:"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'a.txt'] Result:", "successfully saved"}}},
	}}, servertest.Options{})
	one, two := e.ConnectHostAs("window-1"), e.ConnectHostAs("window-2")
	a := e.NewTask("write a", one.ID, act)
	wa := e.Watch(a)
	askA := wa.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	c := e.NewTask("write c", two.ID, act)
	wc := e.Watch(c)
	wc.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	sessA := one.Session(filepath.Join(e.Workspace, "a.txt"))

	// Sent last on window two's stream, its own Save lands after the stray one was handled.
	two.Decide(sessA, false)
	two.Decide(two.Session(filepath.Join(e.Workspace, "c.txt")), true)
	wc.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if i, kind := openAsk(wa); i != askA.GetIndex() || kind != cairnv1.AskKind_ASK_KIND_TOOL {
		t.Fatalf("window one's task: open ask = #%d %v after window two rejected its diff; want #%d still open", i, kind, askA.GetIndex())
	}
	one.Decide(sessA, true)
	wa.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	fileIs(t, filepath.Join(e.Workspace, "a.txt"), "window one\n")
	llmOK(t, e)
}

// An editor decision answers nothing but the edit approval of the diff it names: not a read
// approval that is open now, whether the decision names a diff that was already saved or one
// that was never opened.
func TestEditorDecisionDoesNotAnswerAReadApproval(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "one\n")},
		{Text: "<read_file>\n<path>" + secret + "</path>\n</read_file>"},
		{Text: writeFile("c.txt", "other task\n")},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'c.txt'] Result:"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[read_file for '" + secret + "'] Result:", "The user denied this operation."}}},
	}}, servertest.Options{})
	host := e.ConnectHostAs("window-1")
	id := e.NewTask("write then read", host.ID, act)
	w := e.Watch(id)
	edit := w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	saved := host.Session(filepath.Join(e.Workspace, "a.txt"))
	host.Decide(saved, true)
	w.Until("the read approval", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st.GetOpenAskIndex() > edit.GetIndex()
	})
	read := w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	fileIs(t, filepath.Join(e.Workspace, "a.txt"), "one\n")

	// Another task of the window waits on an edit; its Save, sent last on the same stream, is
	// handled after the two stray decisions, so once it lands they have been handled too.
	other := e.NewTask("write c", host.ID, act)
	wo := e.Watch(other)
	wo.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	host.Decide(saved, true)
	host.Decide("never-opened", true)
	host.Decide(host.Session(filepath.Join(e.Workspace, "c.txt")), true)
	wo.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)

	if i, kind := openAsk(w); i != read.GetIndex() || kind != cairnv1.AskKind_ASK_KIND_TOOL {
		t.Fatalf("open ask = #%d %v after stray editor decisions; want the read approval #%d", i, kind, read.GetIndex())
	}
	if _, err := e.Tasks.AnswerAsk(context.Background(), &cairnv1.AnswerAskRequest{TaskId: id, Response: reject,
		MessageIndex: proto.Int32(read.GetIndex())}); err != nil {
		t.Fatalf("answering the read approval from the chat: %v", err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	llmOK(t, e)
}

// message_index is optional: unset answers the open ask, any set index (0 included) must be
// the open ask's, and a negative one is refused.
func TestAnswerAskMessageIndex(t *testing.T) {
	cases := []struct {
		name  string
		index func(open int32) *int32
		want  codes.Code
	}{
		{name: "unset answers the open ask", index: func(int32) *int32 { return nil }, want: codes.OK},
		{name: "the open ask's index", index: func(open int32) *int32 { return proto.Int32(open) }, want: codes.OK},
		{name: "index 0 is checked like any other", index: func(int32) *int32 { return proto.Int32(0) }, want: codes.FailedPrecondition},
		{name: "an older index is stale", index: func(open int32) *int32 { return proto.Int32(open - 1) }, want: codes.FailedPrecondition},
		{name: "a negative index is refused", index: func(int32) *int32 { return proto.Int32(-1) }, want: codes.InvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: askGoOn}}, OnEnd: &llmtest.Turn{Text: complete}},
				servertest.Options{})
			id := e.NewTask("ask me", "", act)
			w := e.Watch(id)
			ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
			if ask.GetIndex() == 0 {
				t.Fatal("the askGoOn is message 0; the stale case tests nothing")
			}
			_, err := e.Tasks.AnswerAsk(context.Background(), &cairnv1.AnswerAskRequest{TaskId: id,
				Response: message, Text: "yes", MessageIndex: c.index(ask.GetIndex())})
			if got := status.Code(err); got != c.want {
				t.Fatalf("AnswerAsk = %v (%v), want %v", got, err, c.want)
			}
			if c.want != codes.OK {
				if i, kind := openAsk(w); i != ask.GetIndex() || kind != cairnv1.AskKind_ASK_KIND_FOLLOWUP {
					t.Fatalf("a refused answer closed the ask: open = #%d %v", i, kind)
				}
				return
			}
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
		})
	}
}

// The window's bridge reconnects (same client id, a new connection): the task's next edit
// opens its diff on the new connection, and Save there reaches the task.
func TestTaskFollowsItsEditorAcrossReconnects(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "one\n")},
		{Text: askGoOn},
		{Text: writeFile("b.txt", "two\n")},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'b.txt'] Result:", "successfully saved"}}},
	}}, servertest.Options{})
	first := e.ConnectHostAs("window-1")
	id := e.NewTask("write twice", first.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
	if opened, saved, _ := first.Counts(); opened != 1 || saved != 1 {
		t.Fatalf("first connection: opened=%d saved=%d", opened, saved)
	}

	first.Close()
	second := e.ConnectHostAs("window-1")
	if second.ID != first.ID {
		t.Fatalf("host id changed across the reconnect: %q → %q", first.ID, second.ID)
	}
	e.Answer(id, message, "yes")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	pathB := filepath.Join(e.Workspace, "b.txt")
	session := second.Session(pathB)
	if session == "" {
		t.Fatal("the second edit's diff did not open on the new connection")
	}
	second.Decide(session, true)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	fileIs(t, pathB, "two\n")
	if opened, _, _ := first.Counts(); opened != 1 {
		t.Fatalf("the old connection got %d diffs, want only the first", opened)
	}
	llmOK(t, e)
}

// A task of a window whose editor is not connected works through the direct host: the edit
// is approved in the chat and written to disk, the command runs in the daemon's terminal.
func TestTaskWithoutItsEditorFallsBackToDirectHost(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("c.txt", "direct\n")},
		{Text: "<execute_command>\n<command>echo ran-directly</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'c.txt'] Result:", "successfully saved"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[execute_command for 'echo ran-directly'] Result:", "ran-directly"}}},
	}}, servertest.Options{})
	id := e.NewTask("write and run", "window-not-connected", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	fileIs(t, filepath.Join(e.Workspace, "c.txt"), "direct\n")
	llmOK(t, e)
}

// A task loaded from history by Subscribe, SendMessage or AnswerAsk works through the editor
// the request names.
func TestTaskLoadedByAnyCallUsesTheNamedEditor(t *testing.T) {
	calls := []struct {
		name string
		open func(e *servertest.Env, id, hostID string) error
	}{
		{name: "Subscribe", open: func(e *servertest.Env, id, hostID string) error {
			stream, err := e.UI.Subscribe(context.Background(), &cairnv1.SubscribeRequest{TaskId: id, HostId: hostID})
			if err != nil {
				return err
			}
			_, err = stream.Recv()
			return err
		}},
		{name: "SendMessage", open: func(e *servertest.Env, id, hostID string) error {
			_, err := e.Tasks.SendMessage(context.Background(), &cairnv1.SendMessageRequest{TaskId: id, HostId: hostID, Text: "go on"})
			return err
		}},
		{name: "AnswerAsk", open: func(e *servertest.Env, id, hostID string) error {
			_, err := e.Tasks.AnswerAsk(context.Background(), &cairnv1.AnswerAskRequest{TaskId: id, HostId: hostID,
				Response: approve, MessageIndex: proto.Int32(1 << 20)})
			if status.Code(err) == codes.FailedPrecondition {
				return nil // loaded; the made-up index answers nothing
			}
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: askGoOn}}}, servertest.Options{})
			id := e.NewTask("start", "", act)
			e.Watch(id).UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
			e.Stop()

			e2 := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: writeFile("d.txt", "via editor\n")}},
				OnEnd: &llmtest.Turn{Text: complete}}, servertest.Options{DataDir: e.DataDir, Workspace: e.Workspace})
			host := e2.ConnectHostAs("window-1")
			if err := c.open(e2, id, host.ID); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			w := e2.Watch(id)
			// The loaded task asks to be resumed (SendMessage may answer that itself); the edit
			// comes once it goes on.
			for {
				var kind cairnv1.AskKind
				var open int32
				w.Until("the resume ask or the edit approval", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
					kind, open = cairnv1.AskKind_ASK_KIND_UNSPECIFIED, st.GetOpenAskIndex()
					if open >= 0 && int(open) < len(msgs) && msgs[open] != nil {
						kind = msgs[open].GetAsk()
					}
					return kind == cairnv1.AskKind_ASK_KIND_RESUME_TASK || kind == cairnv1.AskKind_ASK_KIND_TOOL
				})
				if kind == cairnv1.AskKind_ASK_KIND_TOOL {
					break
				}
				_, err := e2.Tasks.AnswerAsk(context.Background(), &cairnv1.AnswerAskRequest{TaskId: id, Response: approve,
					MessageIndex: proto.Int32(open)})
				if err != nil && status.Code(err) != codes.FailedPrecondition { // SendMessage may have answered it
					t.Fatalf("answering the resume ask: %v", err)
				}
				w.Until("the resume ask answered", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
					return st.GetOpenAskIndex() != open
				})
			}
			if host.Session(filepath.Join(e2.Workspace, "d.txt")) == "" {
				t.Fatal("the edit did not open a diff in the named editor")
			}
			e2.Answer(id, approve, "")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			llmOK(t, e2)
		})
	}
}
