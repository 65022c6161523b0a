package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// Clearing a task lets go of it in the daemon even while clients stay subscribed: their
// streams end (after what was already published), so no stream goroutine keeps the closed
// task and its messages alive, and the manager holds none of the cleared tasks.
func TestClearTaskReleasesItsSubscribers(t *testing.T) {
	cases := []struct {
		name        string
		tasks, subs int
		finish      bool // wait for the completion before clearing (else clear mid-run)
	}{
		{name: "finished tasks", tasks: 6, subs: 3, finish: true},
		{name: "one subscriber", tasks: 3, subs: 1, finish: true},
		{name: "cleared while waiting on the model", tasks: 3, subs: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			turn := llmtest.Turn{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"}
			if !c.finish {
				turn = llmtest.Turn{Text: "partly sent", Fault: &llmtest.Fault{At: 4, Hang: true}}
			}
			e := servertest.Start(t, llmtest.Script{OnEnd: &turn}, servertest.Options{})
			ctx := context.Background()
			for i := range c.tasks {
				id := e.NewTask(fmt.Sprintf("task %d", i), "", 0)
				var watches []*servertest.Watch
				for range c.subs {
					watches = append(watches, e.Watch(id))
				}
				for _, w := range watches {
					if c.finish {
						w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
						continue
					}
					// Subscribed before the clear: a subscription to a cleared task opens it
					// again from history, by design.
					w.UntilStatus(cairnv1.TaskStatus_TASK_STATUS_RUNNING)
				}
				if _, err := e.Tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: id}); err != nil {
					t.Fatal(err)
				}
				for j, w := range watches {
					if err := w.UntilEnd(); !errors.Is(err, io.EOF) {
						t.Fatalf("task %d, subscriber %d: the stream ended with %v, want a clean end", i, j, err)
					}
				}
			}
			if left := e.Daemon.Tasks().Tasks(); len(left) != 0 {
				t.Fatalf("the daemon still holds %d cleared tasks", len(left))
			}
		})
	}
}
