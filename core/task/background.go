package task

import (
	"context"

	"github.com/cairnhq/cairn/core/task/background"
	"github.com/cairnhq/cairn/core/tools/interact"
)

// Background commands: core/task/background owns what happens to them; the task says when
// (the end of a run, the model's result, the chat's Stop button).

// BackgroundCommands are the commands a task's tools may leave running (Deps.Commands).
type BackgroundCommands = background.Commands

// EndedCommand is one command that ended or was stopped.
type EndedCommand = background.Ended

// ErrNoCommand is StopCommand's answer for an id the task never gave a command.
var ErrNoCommand = background.ErrNoCommand

// StopCommand stops a command the task left running in the background, for the chat's Stop
// button, and says so in the chat. A command that had already ended reports its exit code.
func (t *Task) StopCommand(ctx context.Context, id int) (int, error) {
	return t.bg.Stop(ctx, id)
}

// stopWhy ends the sentence "as the task …" of the chat rows about the commands a run's end
// stopped.
func (e ending) stopWhy() string {
	return map[ending]string{endCompleted: "completed", endCancelled: "was cancelled", endFailed: "failed"}[e]
}

// beforeCompletion stops the background commands when the model presents its result: the
// task is complete, so the chat (and cairn run, which ends at the result) says which commands
// were stopped, before the result row. Feedback on the result starts them afresh if needed.
func (c *toolCall) beforeCompletion(ctx context.Context) bool {
	if c.call.Name == interact.CompletionName {
		c.t.bg.StopAll(ctx, endCompleted.stopWhy())
	}
	return false
}
