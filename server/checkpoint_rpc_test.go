package server_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// twoWrites runs a task that changes a.txt, then creates b.txt, then completes: three
// checkpoint rows (first request, after each write). The last turn answers the request made
// after a resume.
func twoWrites(t *testing.T) (e *servertest.Env, host *servertest.Host, id string, w *servertest.Watch, rows []*cairnv1.Message) {
	t.Helper()
	e = servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("a.txt", "one\n")},
		{Text: writeFile("b.txt", "two\n")},
		{Text: complete},
		{Text: complete},
	}}, servertest.Options{})
	seed(t, e, "a.txt", "orig\n", 0o644)
	host = e.ConnectHost()
	id = e.NewTask("write twice", host.ID, act)
	w = e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.Until("second tool ask", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
		i := int(st.GetOpenAskIndex())
		return i >= 0 && i < len(msgs) && msgs[i].GetAsk() == cairnv1.AskKind_ASK_KIND_TOOL && msgs[i].GetTool().GetPath() == "b.txt"
	})
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	rows = servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED)
	if len(rows) != 3 {
		t.Fatalf("%d checkpoint rows, want 3", len(rows))
	}
	return e, host, id, w, rows
}

func checkpoints(e *servertest.Env) cairnv1.CheckpointServiceClient {
	return cairnv1.NewCheckpointServiceClient(e.Conn)
}

func readOr(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Compare lists both changes since the first checkpoint, shows them in the editor with
// absolute paths, and a later checkpoint bounds the range.
func TestCompareCheckpointRPC(t *testing.T) {
	e, host, id, _, rows := twoWrites(t)
	ctx := context.Background()
	resp, err := checkpoints(e).CompareCheckpoint(ctx, &cairnv1.CompareCheckpointRequest{
		TaskId: id, MessageIndex: proto.Int32(rows[0].GetIndex()), ShowInEditor: true})
	if err != nil {
		t.Fatal(err)
	}
	type file struct{ Path, Before, After string }
	var got []file
	for _, f := range resp.GetFiles() {
		got = append(got, file{f.GetPath(), f.GetBefore(), f.GetAfter()})
	}
	want := []file{{"a.txt", "orig\n", "one\n"}, {"b.txt", "", "two\n"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("compare with the working tree = %q, want %q", got, want)
	}
	if len(host.MultiDiffs) != 1 {
		t.Fatalf("%d multi-diffs shown, want 1", len(host.MultiDiffs))
	}
	md := host.MultiDiffs[0]
	if len(md.GetFiles()) != 2 || md.GetFiles()[1].GetPath() != filepath.Join(e.Workspace, "b.txt") ||
		md.GetFiles()[0].GetLeft() != "orig\n" || md.GetFiles()[0].GetRight() != "one\n" || md.GetTitle() == "" {
		t.Fatalf("multi-diff = %v", md)
	}

	resp, err = checkpoints(e).CompareCheckpoint(ctx, &cairnv1.CompareCheckpointRequest{
		TaskId: id, MessageIndex: proto.Int32(rows[0].GetIndex()), ToHash: rows[1].GetCheckpoint().GetHash()})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetFiles()) != 1 || resp.GetFiles()[0].GetPath() != "a.txt" {
		t.Fatalf("compare first..second = %v, want a.txt only", resp.GetFiles())
	}
	if len(host.MultiDiffs) != 1 {
		t.Fatal("a compare without show_in_editor opened a diff")
	}

	// A row that is not a checkpoint, and an unknown task.
	_, err = checkpoints(e).CompareCheckpoint(ctx, &cairnv1.CompareCheckpointRequest{TaskId: id, MessageIndex: proto.Int32(0)})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("compare on the task row: %v, want InvalidArgument", err)
	}
	_, err = checkpoints(e).CompareCheckpoint(ctx, &cairnv1.CompareCheckpointRequest{TaskId: id})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("compare naming no row: %v, want InvalidArgument", err)
	}
	_, err = checkpoints(e).CompareCheckpoint(ctx, &cairnv1.CompareCheckpointRequest{TaskId: "nope", MessageIndex: proto.Int32(0)})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("compare on an unknown task: %v, want NotFound", err)
	}
}

// Each restore kind, on a task waiting at its completion question, restoring to the checkpoint
// taken after the first write.
func TestRestoreCheckpointRPC(t *testing.T) {
	tests := []struct {
		name         string
		kind         cairnv1.RestoreKind
		wantA, wantB string // file contents afterwards
		cut          bool   // the conversation goes back to the row
		said         string // the row that confirms the restore, before the hash
	}{
		{"files", cairnv1.RestoreKind_RESTORE_KIND_FILES, "one\n", "<none>", false, "Restored the files to checkpoint "},
		{"task", cairnv1.RestoreKind_RESTORE_KIND_TASK, "one\n", "two\n", true, "Restored the task to checkpoint "},
		{"both", cairnv1.RestoreKind_RESTORE_KIND_BOTH, "one\n", "<none>", true, "Restored the files and the task to checkpoint "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, id, w, rows := twoWrites(t)
			row := int(rows[1].GetIndex())
			before := len(w.Messages())
			reqsBefore := len(e.LLM.Requests())

			if _, err := checkpoints(e).RestoreCheckpoint(context.Background(), &cairnv1.RestoreCheckpointRequest{
				TaskId: id, MessageIndex: proto.Int32(int32(row)), Kind: tt.kind}); err != nil {
				t.Fatal(err)
			}
			ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
			if got := readOr(t, filepath.Join(e.Workspace, "a.txt")); got != tt.wantA {
				t.Errorf("a.txt = %q, want %q", got, tt.wantA)
			}
			if got := readOr(t, filepath.Join(e.Workspace, "b.txt")); got != tt.wantB {
				t.Errorf("b.txt = %q, want %q", got, tt.wantB)
			}

			// A new subscription sees the same list as the one that lived through the restore.
			fresh := e.Watch(id)
			fresh.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
			msgs := fresh.Messages()
			if !sameRows(msgs, w.Messages()) {
				t.Fatalf("the old subscription did not reset:\nold %v\nnew %v", kinds(w.Messages()), kinds(msgs))
			}
			deleted := servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_DELETED_API_REQS)
			// The chat confirms the restore in one info row just before the resume question.
			short := rows[1].GetCheckpoint().GetHash()[:7]
			if info := msgs[ask.GetIndex()-1]; info.GetSay() != cairnv1.SayKind_SAY_KIND_INFO || info.GetText() != tt.said+short+"." &&
				!strings.HasPrefix(info.GetText(), tt.said+short+";") {
				t.Fatalf("no confirmation row before the resume question: %v", info)
			}
			if !tt.cut {
				if len(msgs) != before+2 || len(deleted) != 0 || int(ask.GetIndex()) != before+1 {
					t.Fatalf("files-only restore changed the conversation: %v", kinds(msgs))
				}
				// Again while the resume question is open: it is withdrawn and asked afresh.
				var prev *cairnv1.Message
				w.Until("the resume row", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool { prev = msgs[before+1]; return true })
				if _, err := checkpoints(e).RestoreCheckpoint(context.Background(), &cairnv1.RestoreCheckpointRequest{
					TaskId: id, MessageIndex: proto.Int32(rows[0].GetIndex()), Kind: tt.kind}); err != nil {
					t.Fatal(err)
				}
				// The withdrawn question gives way to a second confirmation, then a fresh question.
				w.Until("a fresh resume question", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
					return len(msgs) == before+3 && msgs[before+2] != nil && msgs[before+2] != prev &&
						msgs[before+1].GetSay() == cairnv1.SayKind_SAY_KIND_INFO && msgs[before+2].GetAsk() == cairnv1.AskKind_ASK_KIND_RESUME_TASK &&
						int(st.GetOpenAskIndex()) == before+2 && int(st.GetMessageCount()) == before+3
				})
				if got := readOr(t, filepath.Join(e.Workspace, "a.txt")); got != "orig\n" {
					t.Fatalf("a.txt = %q after restoring the first checkpoint", got)
				}
				return
			}
			// Rows up to the checkpoint, the removed requests' summary, the confirmation, the
			// resume question.
			if len(msgs) != row+4 || msgs[row].GetSay() != cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED ||
				len(deleted) != 1 || int(deleted[0].GetIndex()) != row+1 || int(ask.GetIndex()) != row+3 {
				t.Fatalf("after a task restore to row %d: %v", row, kinds(msgs))
			}
			if deleted[0].GetApiRequest().GetTokensIn() <= 0 {
				t.Fatalf("deleted_api_reqs keeps no usage: %v", deleted[0])
			}

			// The next request goes on from the first write's result, without the second write.
			e.Answer(id, approve, "")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			reqs := e.LLM.Requests()
			if len(reqs) != reqsBefore+1 {
				t.Fatalf("%d requests after resuming, want %d", len(reqs), reqsBefore+1)
			}
			var all strings.Builder
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.Role != "system" {
					all.WriteString(m.Role + ": " + m.Text + "\n")
				}
			}
			text := all.String()
			if strings.Contains(text, "b.txt") || !strings.Contains(text, "[write_to_file for 'a.txt'] Result:") {
				t.Fatalf("request after the restore:\n%s", text)
			}
			llmOK(t, e)
		})
	}
}

// A restore names a checkpoint row and a kind.
func TestRestoreCheckpointRejects(t *testing.T) {
	e, _, id, _, rows := twoWrites(t)
	ctx := context.Background()
	for _, req := range []*cairnv1.RestoreCheckpointRequest{
		{TaskId: id, MessageIndex: proto.Int32(rows[0].GetIndex())},                                  // no kind
		{TaskId: id, MessageIndex: proto.Int32(0), Kind: cairnv1.RestoreKind_RESTORE_KIND_FILES},     // not a checkpoint
		{TaskId: id, MessageIndex: proto.Int32(10_000), Kind: cairnv1.RestoreKind_RESTORE_KIND_TASK}, // out of range
		{TaskId: id, Kind: cairnv1.RestoreKind_RESTORE_KIND_TASK},                                    // no row named
	} {
		if _, err := checkpoints(e).RestoreCheckpoint(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("restore %v: %v, want InvalidArgument", req, err)
		}
	}
	if got := readOr(t, filepath.Join(e.Workspace, "b.txt")); got != "two\n" {
		t.Fatalf("a rejected restore changed files: b.txt = %q", got)
	}
}

func sameRows(a, b []*cairnv1.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].GetIndex() != b[i].GetIndex() || a[i].GetSay() != b[i].GetSay() || a[i].GetAsk() != b[i].GetAsk() {
			return false
		}
	}
	return true
}

func kinds(msgs []*cairnv1.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if m.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED {
			out = append(out, m.GetAsk().String())
		} else {
			out = append(out, m.GetSay().String())
		}
	}
	return out
}
