// Package background is a task's part in the commands its tools leave running (README,
// "Commands that keep running"): execute_command may leave a command running while the task
// goes on. They belong to the task: the chat hears when one ends, the ones still running are
// stopped when a run ends (completed, cancelled, failed) or the model presents its result, and
// a resumed task is told they are gone. The commands themselves are the Commands capability
// core/agent passes in; this package says what happens to them and what the chat is told.
package background

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
)

// Commands are the commands a task's tools left running (core/agent implements it). Every
// method is called on the task's goroutines, never with a task lock held.
type Commands interface {
	// EndedCommands returns the commands left running that ended since the last call.
	EndedCommands() []Ended
	// StopCommands stops (or, for a command in the editor's terminal, releases to the user)
	// every command still running and returns them.
	StopCommands(ctx context.Context) ([]Ended, error)
	// StopCommand stops the command with id and everything it started, and returns it with
	// its exit code; ErrNoCommand when the task has no such command.
	StopCommand(ctx context.Context, id int) (Ended, error)
}

// ErrNoCommand is StopCommand's answer for an id the task never gave a command.
var ErrNoCommand = errors.New("the task has no command with that id")

// Ended is one command that ended or was stopped.
type Ended struct {
	ID      int
	Command string
	Code    int
	// Released is set for a command that runs in the editor's terminal: it was left running
	// there for the user instead of being stopped.
	Released bool
}

// Say posts a row in the task's chat (the task's own say).
type Say func(kind msg.Kind, text string, payload msg.Payload, partial bool) int

// StopWait bounds the stop at the end of a run; a process group gets 5 s between SIGTERM and
// SIGKILL (docs/tools.md, "execute_command").
const StopWait = 10 * time.Second

// Owner is a task's background commands and the chat rows about them. It keeps no state of
// its own beyond what it is given: the commands' registry keeps theirs.
type Owner struct {
	cmds Commands // nil: the task's tools leave nothing running
	say  Say
	warn func(err error)
}

// New returns the owner of cmds (nil: none) that tells the chat through say and the daemon's
// log through warn (a stop that failed: what was stopped is in the chat either way).
func New(cmds Commands, say Say, warn func(err error)) *Owner {
	return &Owner{cmds: cmds, say: say, warn: warn}
}

// Stop stops a command for the chat's Stop button, and says so in the chat. A command that had
// already ended reports its exit code.
func (o *Owner) Stop(ctx context.Context, id int) (int, error) {
	if o.cmds == nil {
		return -1, ErrNoCommand
	}
	c, err := o.cmds.StopCommand(ctx, id)
	if err != nil {
		return -1, err
	}
	o.say(msg.SayInfo, fmt.Sprintf("Stopped command %d at the user's request: %s", c.ID, c.Command), payload(c), false)
	return c.Code, nil
}

// ReportEnded says in the chat which commands ended since the last turn.
func (o *Owner) ReportEnded() {
	if o.cmds == nil {
		return
	}
	for _, c := range o.cmds.EndedCommands() {
		o.say(msg.SayInfo, fmt.Sprintf("Command %d ended (exit code %d): %s", c.ID, c.Code, c.Command), payload(c), false)
	}
}

// StopAll stops the commands still running when a run ends and says which; why ends the
// sentence "as the task …" ("completed", "was cancelled", "failed"). A cancelled run's ctx has
// ended; the stop happens all the same, bounded by StopWait. A failed stop goes to the log:
// what was stopped is in the chat either way.
func (o *Owner) StopAll(ctx context.Context, why string) {
	if o.cmds == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopWait)
	defer cancel()
	stopped, err := o.cmds.StopCommands(sctx)
	for _, c := range stopped {
		text := fmt.Sprintf("Stopped command %d as the task %s: %s", c.ID, why, c.Command)
		if c.Released {
			text = fmt.Sprintf("Command %d runs on in the editor's terminal, which is yours now (the task %s): %s", c.ID, why, c.Command)
		}
		o.say(msg.SayInfo, text, payload(c), false)
	}
	if err != nil {
		o.warn(err)
	}
}

// GoneNote is the note for a resumed task, whose rows are ms, that had left commands running
// in the background: they are gone.
func (o *Owner) GoneNote(ms []msg.Message) []llm.Content {
	if WentThere(ms) {
		return []llm.Content{llm.Text(prompt.BackgroundGone())}
	}
	return nil
}

// WentThere reports whether a row of the chat shows a command went to the background (its
// payload carries its id): a resumed task is then told they are gone.
func WentThere(ms []msg.Message) bool {
	for _, m := range ms {
		if co, ok := m.Payload.(*msg.CommandOutput); ok && co.Running && co.ID > 0 {
			return true
		}
	}
	return false
}

// payload lets the chat tell which command a note is about (its running row then drops the
// Stop button); the note of a released command carries no exit code.
func payload(c Ended) *msg.CommandOutput {
	p := &msg.CommandOutput{ID: c.ID}
	if !c.Released {
		code := c.Code
		p.ExitCode = &code
	}
	return p
}
