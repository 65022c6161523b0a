package task

import (
	"context"
)

// Background commands: core/task/background owns what happens to them; the task says when
// (the end of a run, the model's result, the chat's Stop button).

// StopCommand stops a command the task left running in the background, for the chat's Stop
// button, and says so in the chat. A command that had already ended reports its exit code.
func (t *Task) StopCommand(ctx context.Context, id int) (int, error) {
	return t.bg.Stop(ctx, id)
}
