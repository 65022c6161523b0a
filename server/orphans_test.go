package server_test

import (
	"strings"
	"testing"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// A window that closes does not leave its running task going unseen: once its editor has not
// come back within the grace, the task is cancelled and asks to be resumed.
func TestClosedWindowsTaskIsCancelled(t *testing.T) {
	slow := llmtest.Turn{Text: strings.Repeat("still thinking ", 400) + complete, ChunkSize: 10,
		Delay: llmtest.Duration(20 * time.Millisecond)}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{slow}}, servertest.Options{WindowGrace: 200 * time.Millisecond})
	host := e.ConnectHost()
	id := e.NewTask("think", host.ID, act)
	w := e.Watch(id)
	w.Until("streaming", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool {
		return len(servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_TEXT)) > 0
	})
	host.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
	if n := len(e.LLM.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}
