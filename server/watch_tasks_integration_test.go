package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// The Board's stream (README, "The Board"): a task's start, its question, the answer and its
// end each bring a new board on the one stream, with no call in between.
func TestWatchTasksFollowsTheTasks(t *testing.T) {
	repo := gitRepo(t)
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("greet.txt", "hello board\n")},
		{Text: complete},
	}}, servertest.Options{Workspace: repo})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream, err := e.Tasks.WatchTasks(ctx, &cairnv1.WatchTasksRequest{WorkspaceRoot: repo})
	if err != nil {
		t.Fatal(err)
	}
	until := func(what string, ok func([]*cairnv1.BoardTask) bool) []*cairnv1.BoardTask {
		t.Helper()
		return boardUntil(t, stream, what, ok)
	}
	until("the empty board", func(ts []*cairnv1.BoardTask) bool { return len(ts) == 0 })
	id := e.NewTask("greet the board", "", act)
	board := until("the question", func(ts []*cairnv1.BoardTask) bool {
		return len(ts) == 1 && ts[0].GetAsk().GetAsk() == cairnv1.AskKind_ASK_KIND_TOOL
	})
	if b := board[0]; b.GetTaskId() != id || !b.GetLive() || b.GetStatus() != cairnv1.TaskStatus_TASK_STATUS_WAITING || b.GetWorkspaceRoot() != repo {
		t.Fatalf("board entry %v", b)
	}
	e.Answer(id, approve, "")
	until("the completion", func(ts []*cairnv1.BoardTask) bool {
		return len(ts) == 1 && ts[0].GetAsk().GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT
	})
	llmOK(t, e)

	// Another workspace's stream does not list it; the filter for all does.
	other, err := e.Tasks.WatchTasks(ctx, &cairnv1.WatchTasksRequest{WorkspaceRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := other.Recv(); err != nil || len(b.GetTasks()) != 0 {
		t.Fatalf("another workspace's board: %v, %v", b, err)
	}
	all, err := e.Tasks.WatchTasks(ctx, &cairnv1.WatchTasksRequest{WorkspaceRoot: t.TempDir(), All: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := all.Recv(); err != nil || len(b.GetTasks()) != 1 {
		t.Fatalf("the board of all workspaces: %v, %v", b, err)
	}
	// Accepted and closed, the task stays on the board as one of the workspace's saved tasks:
	// not open, done, with its title and without a question (README, "The Board").
	e.Answer(id, approve, "")
	until("the task done", func(ts []*cairnv1.BoardTask) bool {
		return len(ts) == 1 && ts[0].GetStatus() == cairnv1.TaskStatus_TASK_STATUS_COMPLETED && ts[0].GetAsk() == nil
	})
	if _, err := e.Tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: id}); err != nil {
		t.Fatal(err)
	}
	// (A board built between the close and the manager's word of it may still show the header
	// the task was opened with; the next one reads it again.)
	board = until("the task closed", func(ts []*cairnv1.BoardTask) bool {
		return len(ts) == 1 && !ts[0].GetLive() && ts[0].GetStatus() == cairnv1.TaskStatus_TASK_STATUS_COMPLETED
	})
	if b := board[0]; b.GetTaskId() != id || b.GetStatus() != cairnv1.TaskStatus_TASK_STATUS_COMPLETED || b.GetTitle() != "greet the board" ||
		b.GetAsk() != nil || b.GetWorkspaceRoot() != repo {
		t.Errorf("the closed task's entry: %v", b)
	}
	// A board opened later lists it too, and another workspace's does not.
	later, err := e.Tasks.WatchTasks(ctx, &cairnv1.WatchTasksRequest{WorkspaceRoot: repo})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := later.Recv(); err != nil || len(b.GetTasks()) != 1 || b.GetTasks()[0].GetTaskId() != id {
		t.Fatalf("a new board of the workspace: %v, %v", b, err)
	}
	if b, err := other.Recv(); err == nil && len(b.GetTasks()) != 0 {
		t.Errorf("another workspace's board lists the closed task: %v", b)
	}
}

// boardUntil reads boards until one satisfies ok.
func boardUntil(t *testing.T, stream cairnv1.TaskService_WatchTasksClient, what string, ok func([]*cairnv1.BoardTask) bool) []*cairnv1.BoardTask {
	t.Helper()
	for {
		b, err := stream.Recv()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(b.GetTasks()) {
			return b.GetTasks()
		}
	}
}

// A subtask an orchestrator delegates is an entry of the board under its parent (README,
// "The Board"): waiting, with the parent's question, while the user is asked to let it start;
// then with its mode, title and status as the parent's row follows it.
func TestWatchTasksShowsDelegatedSubtasks(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"docs.md": docsMode})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<delegate>\n<mode>docs</mode>\n<message>Write NOTES.md.</message>\n</delegate>"},
		{Text: "<attempt_completion>\n<result>Wrote NOTES.md.</result>\n</attempt_completion>"},
		{Text: complete},
	}}, servertest.Options{Workspace: ws})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream, err := e.Tasks.WatchTasks(ctx, &cairnv1.WatchTasksRequest{WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	id := newTaskIn(t, e, "write the notes", "orchestrator")
	// sub finds the one subtask entry of a board and checks what every board says of it.
	sub := func(ts []*cairnv1.BoardTask) *cairnv1.BoardTask {
		var found *cairnv1.BoardTask
		for _, b := range ts {
			if b.GetSubtask() {
				found = b
			}
		}
		if found == nil || len(ts) != 2 {
			return nil
		}
		if found.GetParentId() != id || found.GetTitle() != "Write NOTES.md." || found.GetModeSlug() != "docs" || !found.GetLive() ||
			found.GetTaskId() != fmt.Sprintf("%s/subtask-%d", id, found.GetRow()) {
			t.Fatalf("subtask entry %v", found)
		}
		return found
	}
	board := boardUntil(t, stream, "the delegation asked", func(ts []*cairnv1.BoardTask) bool {
		return sub(ts).GetStatus() == cairnv1.TaskStatus_TASK_STATUS_WAITING
	})
	s := sub(board)
	if a := s.GetAsk(); a.GetTool().GetOperation() != cairnv1.ToolOperation_TOOL_OPERATION_DELEGATE || a.GetIndex() != s.GetRow() {
		t.Fatalf("the waiting subtask's question %v", a)
	}
	for _, b := range board {
		if b.GetTaskId() == id && (b.GetAsk() != nil || b.GetStatus() != cairnv1.TaskStatus_TASK_STATUS_WAITING || b.GetModeSlug() != "orchestrator") {
			t.Fatalf("the parent's entry %v: waiting, its question on the subtask's entry", b)
		}
	}
	e.Answer(id, approve, "")
	board = boardUntil(t, stream, "the subtask done", func(ts []*cairnv1.BoardTask) bool {
		return sub(ts).GetStatus() == cairnv1.TaskStatus_TASK_STATUS_COMPLETED
	})
	if done := sub(board); done.GetAsk() != nil || done.GetRow() <= s.GetRow() {
		t.Fatalf("the subtask's entry %v once it ran: its delegate row follows the question's", done)
	}
	boardUntil(t, stream, "the parent's completion", func(ts []*cairnv1.BoardTask) bool {
		return sub(ts) != nil && ts[0].GetAsk().GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT
	})
	llmOK(t, e)
}
