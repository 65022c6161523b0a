package task

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/tools/interact"
)

// Background commands (README "Commands that keep running"): execute_command may leave a
// command running while the task goes on. They belong to the task: the chat hears when one
// ends, the ones still running are stopped when a run ends (completed, cancelled, failed), and
// a resumed task is told they are gone.

// BackgroundCommands are the commands a task's tools left running (core/agent implements it
// and passes it in Deps.Commands). Every method is called on the task's goroutines, never with
// a task lock held.
type BackgroundCommands interface {
	// EndedCommands returns the commands left running that ended since the last call.
	EndedCommands() []EndedCommand
	// StopCommands stops (or, for a command in the editor's terminal, releases to the user)
	// every command still running and returns them.
	StopCommands(ctx context.Context) ([]EndedCommand, error)
	// StopCommand stops the command with id and everything it started, and returns it with
	// its exit code; ErrNoCommand when the task has no such command.
	StopCommand(ctx context.Context, id int) (EndedCommand, error)
}

// ErrNoCommand is StopCommand's answer for an id the task never gave a command.
var ErrNoCommand = errors.New("the task has no command with that id")

// StopCommand stops a command the task left running in the background, for the chat's Stop
// button, and says so in the chat. A command that had already ended reports its exit code.
func (t *Task) StopCommand(ctx context.Context, id int) (int, error) {
	bg := t.deps.Commands
	if bg == nil {
		return -1, ErrNoCommand
	}
	c, err := bg.StopCommand(ctx, id)
	if err != nil {
		return -1, err
	}
	t.say(msg.SayInfo, fmt.Sprintf("Stopped command %d at the user's request: %s", c.ID, c.Command), endedPayload(c), false)
	return c.Code, nil
}

// EndedCommand is one command that ended or was stopped.
type EndedCommand struct {
	ID      int
	Command string
	Code    int
	// Released is set for a command that runs in the editor's terminal: it was left running
	// there for the user instead of being stopped.
	Released bool
}

// stopCommandsWait bounds the stop at the end of a run; a process group gets 5 s between
// SIGTERM and SIGKILL (docs/tools.md, "execute_command").
const stopCommandsWait = 10 * time.Second

// reportEndedCommands says in the chat which background commands ended since the last turn.
func (t *Task) reportEndedCommands() {
	bg := t.deps.Commands
	if bg == nil {
		return
	}
	for _, c := range bg.EndedCommands() {
		t.say(msg.SayInfo, fmt.Sprintf("Command %d ended (exit code %d): %s", c.ID, c.Code, c.Command), endedPayload(c), false)
	}
}

// stopBackground stops the commands still running when a run ends and says which.
func (t *Task) stopBackground(ctx context.Context, end ending) {
	bg := t.deps.Commands
	if bg == nil {
		return
	}
	why := map[ending]string{endCompleted: "completed", endCancelled: "was cancelled", endFailed: "failed"}[end]
	// A cancelled run's ctx has ended; the stop must happen all the same.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopCommandsWait)
	defer cancel()
	stopped, err := bg.StopCommands(sctx)
	if err != nil {
		t.logger().Warn("task: stopping background commands", "task", t.id, "err", err)
	}
	for _, c := range stopped {
		text := fmt.Sprintf("Stopped command %d as the task %s: %s", c.ID, why, c.Command)
		if c.Released {
			text = fmt.Sprintf("Command %d runs on in the editor's terminal, which is yours now (the task %s): %s", c.ID, why, c.Command)
		}
		t.say(msg.SayInfo, text, endedPayload(c), false)
	}
}

// endedPayload lets the chat tell which command a note is about (its running row then drops
// the Stop button); the note of a released command carries no exit code.
func endedPayload(c EndedCommand) *msg.CommandOutput {
	p := &msg.CommandOutput{ID: c.ID}
	if !c.Released {
		code := c.Code
		p.ExitCode = &code
	}
	return p
}

// beforeCompletion stops the background commands when the model presents its result: the
// task is complete, so the chat (and cairn run, which ends at the result) says which commands
// were stopped, before the result row. Feedback on the result starts them afresh if needed.
func (c *toolCall) beforeCompletion(ctx context.Context) bool {
	if c.call.Name == interact.CompletionName {
		c.t.stopBackground(ctx, endCompleted)
	}
	return false
}

// backgroundGoneNote is the note for a resumed task that had left commands running in the
// background: a row of the chat shows one went there (its payload carries its id).
func (t *Task) backgroundGoneNote() []llm.Content {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range t.conv.messages {
		if co, ok := m.Payload.(*msg.CommandOutput); ok && co.Running && co.ID > 0 {
			return []llm.Content{llm.Text(prompt.BackgroundGone())}
		}
	}
	return nil
}
