package task

import (
	"context"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
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

// stopBackground stops the commands still running when a run ends and says which.
func (t *Task) stopBackground(ctx context.Context, end ending) {
	why := map[ending]string{endCompleted: "completed", endCancelled: "was cancelled", endFailed: "failed"}[end]
	if err := t.bg.StopAll(ctx, why); err != nil {
		t.logger().Warn("task: stopping background commands", "task", t.id, "err", err)
	}
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
// background.
func (t *Task) backgroundGoneNote() []llm.Content {
	if background.WentThere(t.conv.Messages()) {
		return []llm.Content{llm.Text(prompt.BackgroundGone())}
	}
	return nil
}
