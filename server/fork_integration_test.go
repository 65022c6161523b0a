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

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// Fork from any message (README): a task writes greet.txt twice; a fork from the first
// edit's checkpoint has the conversation up to that checkpoint and greet.txt as the first
// edit left it, in a worktree of its own, and the original keeps its rows and its file.
func TestForkFromCheckpoint(t *testing.T) {
	repo := gitRepo(t)
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("greet.txt", "first edit\n")},
		{Text: writeFile("greet.txt", "second edit\n")},
		{Text: complete},
	}}, servertest.Options{Workspace: repo, Settings: autoEdits})
	id := e.NewTask("greet twice", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	llmOK(t, e)
	original := w.Messages()
	rows := servertest.Find(original, cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED)
	if len(rows) < 3 {
		t.Fatalf("%d checkpoint rows, want one per edit after the first", len(rows))
	}
	// rows[0] is the first request's; rows[1] follows the first edit.
	at := rows[1].GetIndex()
	ctx := context.Background()
	resp, err := e.Tasks.ForkTask(ctx, &cairnv1.ForkTaskRequest{TaskId: id, MessageIndex: at - 1})
	if err != nil {
		t.Fatalf("ForkTask at the first edit: %v", err)
	}
	if resp.GetCheckpoint() != rows[1].GetCheckpoint().GetHash() {
		t.Errorf("forked from checkpoint %s, want the one after the first edit %s", resp.GetCheckpoint(), rows[1].GetCheckpoint().GetHash())
	}
	root := resp.GetWorkspaceRoot()
	if root == repo || root == "" {
		t.Fatalf("the fork's workspace %q is not a worktree of its own", root)
	}
	if got := readText(t, filepath.Join(root, "greet.txt")); got != "first edit\n" {
		t.Errorf("the fork's greet.txt = %q, want the first edit's", got)
	}
	fw := e.Watch(resp.GetTaskId())
	fw.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
	forked := fw.Messages()
	if len(forked) < int(at)+1 {
		t.Fatalf("the fork has %d rows, want the %d up to the checkpoint", len(forked), at+1)
	}
	for i := int32(0); i <= at; i++ {
		if forked[i].GetText() != original[i].GetText() || forked[i].GetSay() != original[i].GetSay() || forked[i].GetAsk() != original[i].GetAsk() {
			t.Errorf("fork row %d = %v, want the original's %v", i, forked[i], original[i])
		}
	}
	for _, m := range forked[at+1:] {
		if m.GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT || m.GetSay() == cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED {
			t.Errorf("the fork has a row from after its checkpoint: %v", m)
		}
	}
	// The original is untouched: its file and its rows.
	if got := readText(t, filepath.Join(repo, "greet.txt")); got != "second edit\n" {
		t.Errorf("the original's greet.txt = %q after the fork", got)
	}
	ow := e.Watch(id)
	ow.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	after := ow.Messages()
	if len(after) != len(original) {
		t.Errorf("the original has %d rows after the fork, had %d", len(after), len(original))
	}

	// A message that does not exist has no checkpoint: refused with the reason.
	_, err = e.Tasks.ForkTask(ctx, &cairnv1.ForkTaskRequest{TaskId: id, MessageIndex: int32(len(original) + 5)})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("fork past the end: %v, want FailedPrecondition", err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("the fork's worktree: %v", err)
	}
}
