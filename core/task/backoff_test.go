package task

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// retryRow returns the index of the last error_retry row, or -1.
func retryRow(tk *Task) int {
	ms := tk.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Kind == msg.SayErrorRetry {
			return i
		}
	}
	return -1
}

// The wait before a retry is shown as a row and ends when the user answers that row with
// approval ("Retry now"); other answers are refused and leave it waiting.
func TestRetryNowCutsTheBackoffShort(t *testing.T) {
	cases := []struct {
		name  string
		index func(row int) int
	}{
		{"naming the row", func(row int) int { return row }},
		{"naming no row", func(int) int { return -1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
				{Fault: &llmtest.Fault{Status: 503}},
				{Text: completion},
			}})
			// The wait never ends by itself: only Retry now (or the task's end) ends it.
			waits := make(chan time.Duration, 4)
			r.sleep = func(ctx context.Context, d time.Duration) error {
				waits <- d
				<-ctx.Done()
				return ctx.Err()
			}
			tk := r.newTask("hello")
			delay := <-waits
			row := retryRow(tk)
			if row < 0 {
				t.Fatal("no error_retry row before the wait")
			}
			retry, ok := tk.Messages()[row].Payload.(*msg.Retry)
			if !ok || retry.Attempt != 1 || time.Duration(retry.DelaySec)*time.Second != delay {
				t.Fatalf("row payload %+v, wait %s", tk.Messages()[row].Payload, delay)
			}
			for _, bad := range []struct {
				index int
				ans   tools.Answer
			}{{row + 1, tools.Answer{Approved: true}}, {row, tools.Answer{}}} {
				if err := tk.Answer(bad.index, bad.ans); !errors.Is(err, ErrNoOpenAsk) {
					t.Errorf("Answer(%d, %+v) = %v, want ErrNoOpenAsk", bad.index, bad.ans, err)
				}
			}
			if err := tk.Answer(c.index(row), tools.Answer{Approved: true}); err != nil {
				t.Fatalf("Retry now: %v", err)
			}
			waitAsk(t, tk, msg.AskCompletionResult)
			// A late click on the row's button answers nothing else.
			if err := tk.Answer(row, tools.Answer{Approved: true}); !errors.Is(err, ErrStaleAsk) {
				t.Errorf("a late Retry now = %v, want ErrStaleAsk", err)
			}
		})
	}
}
