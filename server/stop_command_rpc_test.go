//go:build unix

package server_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// The chat's Stop: a command the model left running in the background has its id on its row,
// StopCommand stops it and its process, and the chat says so with a note naming the same id.
func TestStopCommandRPC(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<execute_command>\n<command>sh -c 'echo pid $$; exec sleep 300'</command>\n" +
			"<requires_approval>false</requires_approval>\n<background>true</background>\n</execute_command>"},
		{Text: "<ask_followup_question>\n<question>Keep it?</question>\n</ask_followup_question>",
			Expect: &llmtest.Expect{LastUserContains: []string{"running in the background as command 1"}}},
	}}, servertest.Options{})
	id := e.NewTask("start it", "", act)
	w := e.Watch(id)
	// `$$` is only known when the line runs, so the line is not read-only: it is asked.
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMMAND)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)

	var row *cairnv1.Message
	for _, m := range servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT) {
		if m.GetCommandOutput().GetRunning() {
			row = m
		}
	}
	if row == nil || row.GetCommandOutput().GetId() != 1 {
		t.Fatalf("running row = %v; want one with id 1", row)
	}
	var pid int
	if _, err := fmt.Sscanf(row.GetCommandOutput().GetOutput(), "pid %d", &pid); err != nil {
		t.Fatalf("no PID in %q: %v", row.GetCommandOutput().GetOutput(), err)
	}

	ctx := context.Background()
	if _, err := e.Tasks.StopCommand(ctx, &cairnv1.StopCommandRequest{TaskId: id, CommandId: 7}); status.Code(err) != codes.NotFound {
		t.Errorf("an unknown command: %v, want NotFound", err)
	}
	if _, err := e.Tasks.StopCommand(ctx, &cairnv1.StopCommandRequest{TaskId: id}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("no command id: %v, want InvalidArgument", err)
	}
	resp, err := e.Tasks.StopCommand(ctx, &cairnv1.StopCommandRequest{TaskId: id, CommandId: 1})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetExitCode() == 0 {
		t.Errorf("exit code %d; want the signal's", resp.GetExitCode())
	}
	if alive, ok := sandboxtest.Alive(pid); ok {
		if alive {
			t.Errorf("sandboxed process %d still runs after StopCommand", pid)
		}
	} else if err := syscall.Kill(pid, 0); err == nil && !zombie(pid) {
		t.Errorf("process %d still runs after StopCommand", pid)
	}
	w.Until("the note naming command 1", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool {
		for _, m := range servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_INFO) {
			if strings.HasPrefix(m.GetText(), "Stopped command 1 at the user's request") && m.GetCommandOutput().GetId() == 1 {
				return true
			}
		}
		return false
	})
}

// zombie reports whether pid has exited and waits for its parent (it runs no more).
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
