package server_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/store"
)

// A task another daemon holds (here a second store on the data dir, as another daemon's is):
// the daemon lists it and shows its saved messages, refuses to resume or delete it with the
// holder's pid, and resumes it once the holder lets go.
func TestTaskHeldByAnotherDaemon(t *testing.T) {
	dataDir := t.TempDir()
	seedHistory(t, dataDir, []seeded{{id: "held", title: "Held elsewhere", ws: t.TempDir(), hoursAgo: 1}})
	other, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	holding, err := other.Load("held")
	if err != nil {
		t.Fatal(err)
	}
	released := false
	defer func() {
		if !released {
			mustClose(t, holding.Log)
		}
	}()
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{DataDir: dataDir})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err = e.Tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: "held"})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("ResumeTask: %v, want FailedPrecondition", err)
	}
	for _, want := range []string{"process " + strconv.Itoa(os.Getpid()), "cairn resume --connect held"} {
		if !strings.Contains(status.Convert(err).Message(), want) {
			t.Errorf("ResumeTask's message %q lacks %q", status.Convert(err).Message(), want)
		}
	}
	if _, err := e.Tasks.DeleteTasks(ctx, &cairnv1.DeleteTasksRequest{TaskIds: []string{"held"}}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("DeleteTasks: %v, want FailedPrecondition", err)
	}
	list, err := e.Tasks.ListTasks(ctx, &cairnv1.ListTasksRequest{})
	if err != nil || len(list.GetTasks()) != 1 || list.GetTasks()[0].GetTaskId() != "held" {
		t.Errorf("ListTasks = %v, %v", list, err)
	}
	sctx, scancel := context.WithCancel(ctx)
	sub, err := e.UI.Subscribe(sctx, &cairnv1.SubscribeRequest{TaskId: "held"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := sub.Recv()
	if err != nil || len(first.GetSnapshot().GetMessages()) != 4 || first.GetSnapshot().GetState().GetTitle() != "Held elsewhere" {
		t.Fatalf("Subscribe's snapshot: %v, %v", first, err)
	}
	scancel()

	mustClose(t, holding.Log)
	released = true
	if _, err := e.Tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: "held"}); err != nil {
		t.Fatalf("ResumeTask after the holder let go: %v", err)
	}
	if _, err := other.Load("held"); err == nil {
		t.Error("the other store opened the task the daemon now holds")
	}
}
