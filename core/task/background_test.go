//go:build unix

package task

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/shell"
)

// bgTurns gives a test task the background commands of a real shell registry, the way the
// agent's turns do.
type bgTurns struct {
	bareTurns
	reg *shell.Registry
}

func (b bgTurns) EndedCommands() []EndedCommand { return toEnded(b.reg.Ended()) }

func (b bgTurns) StopCommands(ctx context.Context) ([]EndedCommand, error) {
	s, err := b.reg.StopAll(ctx)
	return toEnded(s), err
}

func (b bgTurns) StopCommand(ctx context.Context, id int) (EndedCommand, error) {
	tr := b.reg.Get(id)
	if tr == nil {
		return EndedCommand{}, ErrNoCommand
	}
	code, err := tr.Stop(ctx)
	return EndedCommand{ID: id, Command: tr.Command(), Code: code}, err
}

func toEnded(in []shell.Stopped) []EndedCommand {
	var out []EndedCommand
	for _, s := range in {
		out = append(out, EndedCommand{ID: s.ID, Command: s.Command, Code: s.Code})
	}
	return out
}

// startServer is a model turn starting a process in the background that prints its PID
// first and never ends by itself.
const startServer = "<execute_command>\n<command>sh -c 'echo $$; exec sleep 300'</command>\n" +
	"<requires_approval>false</requires_approval>\n<background>true</background>\n</execute_command>"

// bgRig is a rig whose tasks have execute_command over reg, everything auto-approved.
func bgRig(t *testing.T, reg *shell.Registry, turns ...llmtest.Turn) *rig {
	r := newRig(t, llmtest.Script{Turns: turns}, shell.New(reg))
	r.settings = func(s *config.Settings) { s.AutoApprove.YOLO = true }
	r.turns = func() Turns { return bgTurns{reg: reg} }
	r.commands = func() BackgroundCommands { return bgTurns{reg: reg} }
	return r
}

// serverPID returns the PID command 1 printed, once it printed it.
func serverPID(t *testing.T, reg *shell.Registry) int {
	t.Helper()
	var pid int
	waitFor(t, "command 1's PID", func() bool {
		tr := reg.Get(1)
		if tr == nil {
			return false
		}
		out, err := tr.Whole()
		if err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(out, "\n")
		pid, err = strconv.Atoi(strings.TrimSpace(line))
		return err == nil
	})
	return pid
}

// gone reports whether pid runs no more; a zombie counts as gone where /proc tells.
func gone(pid int) bool {
	if alive, ok := sandboxtest.Alive(pid); ok {
		return !alive // the PID the command printed is its id in the sandbox's process table
	}
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // no /proc: it still exists
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

func hasInfo(tk *Task, text string) bool {
	for _, m := range tk.Messages() {
		if m.Kind == msg.SayInfo && m.Text == text {
			return true
		}
	}
	return false
}

// A task that completes stops the commands it left running in the background when the model
// presents its result, and says so above the result.
func TestCompletionStopsBackgroundCommands(t *testing.T) {
	reg := shell.NewRegistry()
	r := bgRig(t, reg, llmtest.Turn{Text: startServer}, llmtest.Turn{Text: completion})
	tk := r.newTask("start the server")
	pid := serverPID(t, reg)
	waitAsk(t, tk, msg.AskCompletionResult)
	waitFor(t, "the server to be gone", func() bool { return gone(pid) })
	stopRow, resultRow := -1, -1
	for i, m := range tk.Messages() {
		switch {
		case m.Kind == msg.SayInfo && m.Text == "Stopped command 1 as the task completed: sh -c 'echo $$; exec sleep 300'":
			stopRow = i
		case m.Kind == msg.SayCompletionResult:
			resultRow = i
		}
	}
	if stopRow < 0 || resultRow < stopRow {
		t.Fatalf("stop row at %d, result row at %d; want the stop said before the result", stopRow, resultRow)
	}
	if err := tk.AnswerKind(msg.AskCompletionResult, tools.Answer{Approved: true}); err != nil {
		t.Fatal(err)
	}
}

// A cancelled task stops them too.
func TestCancelStopsBackgroundCommands(t *testing.T) {
	reg := shell.NewRegistry()
	r := bgRig(t, reg, llmtest.Turn{Text: startServer},
		llmtest.Turn{Text: "<ask_followup_question>\n<question>Keep it?</question>\n</ask_followup_question>"},
		llmtest.Turn{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[TASK RESUMPTION]",
			"Commands you had left running in the background before this resumption"}}})
	tk := r.newTask("start the server")
	pid := serverPID(t, reg)
	waitAsk(t, tk, msg.AskFollowup)
	if gone(pid) {
		t.Fatal("the server ended before the cancel")
	}
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stop row", func() bool {
		return hasInfo(tk, "Stopped command 1 as the task was cancelled: sh -c 'echo $$; exec sleep 300'")
	})
	waitFor(t, "the server to be gone", func() bool { return gone(pid) })

	// Resumed, the model is told its background commands are gone (the script checks it).
	waitAsk(t, tk, msg.AskResumeTask)
	if err := tk.AnswerKind(msg.AskResumeTask, tools.Answer{Approved: true}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := r.llm.Err(); err != nil {
		t.Fatal(err)
	}
}
