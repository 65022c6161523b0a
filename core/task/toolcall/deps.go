// Package toolcall is the pipeline one tool call goes through: the todo list it carries, the
// look-up, the checks (a missing parameter, PLAN mode, the PreToolUse hooks), the run's first
// checkpoint, the tool itself (which asks for its approval through the call's UI), what the
// call reports (the files it touched, PostToolUse, a checkpoint), and the result the model
// reads next. A call made a third time in a row is stopped here too (Repeated).
//
// A call lives on the loop's goroutine, from its first step to its result, and keeps no state
// past it. What it needs of the task it reaches through the interfaces of Deps, passed in when
// the task is assembled: it imports neither core/task nor another of its owners
// (docs/task-runtime.md).
package toolcall

import (
	"context"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
)

// End is how a call leaves the task's run: it goes on (0), or the run ends.
type End int

// Ends of a run.
const (
	Completed End = iota + 1
	Cancelled
	Failed
)

// StopWhy ends the sentence "as the task …" of the chat rows about the commands a run's end
// stopped.
func (e End) StopWhy() string {
	return map[End]string{Completed: "completed", Cancelled: "was cancelled", Failed: "failed"}[e]
}

// Chat is the task's chat (core/task/conversation).
type Chat interface {
	// Say posts a row and returns its index.
	Say(kind msg.Kind, text string, payload msg.Payload, partial bool) int
	// Update changes the row at index in place.
	Update(index int, f func(*msg.Message))
}

// Guards are the counts of the guard rails (core/task/guards).
type Guards interface {
	// Mistake counts a mistake of the model.
	Mistake()
	// EditFailed counts a failed edit of path; true when it makes a mistake.
	EditFailed(path string) bool
	// Succeeded ends the run of mistakes (and of failed edits of path, for an edit).
	Succeeded(edit bool, path string)
	// ForgetRepeats starts the count of a call made again over.
	ForgetRepeats()
	// AutoApproval counts an auto-approval; true when the limit in a row is reached.
	AutoApproval(limit int, yolo bool) bool
	// UserApproved ends the auto-approvals in a row.
	UserApproved()
}

// Hooks are the user's hooks around a tool (core/task/hookpoints).
type Hooks interface {
	// PreTool runs the PreToolUse hooks; blocked keeps the tool from running, with the text
	// the model reads.
	PreTool(ctx context.Context, call tools.Call) (blocked bool, result string)
	// PostTool runs the PostToolUse hooks.
	PostTool(ctx context.Context, call tools.Call, res tools.Result, took time.Duration)
}

// Checkpoints are the task's checkpoints (core/task/checkpoints).
type Checkpoints interface {
	// AwaitFirst waits for the run's first checkpoint.
	AwaitFirst(ctx context.Context)
	// Take takes a checkpoint and posts its row.
	Take(ctx context.Context)
	// MarkChanges says on a completion's payload whether the work changed files.
	MarkChanges(ctx context.Context, p *msg.Completion)
}

// Background stops the commands the task's tools left running (core/task/background).
type Background interface {
	StopAll(ctx context.Context, why string)
}

// Todo keeps the todo list a call carries (core/task/todo).
type Todo interface {
	Set(list string)
}

// Sub is what a subagent notes of its calls (core/task/subagent).
type Sub interface {
	NoteTool(spec tools.Spec, call tools.Call)
}

// Task is what a call needs of the task around it. Its methods are called on the loop's
// goroutine with no lock held.
type Task interface {
	// Planning reports whether the task is in PLAN mode.
	Planning() bool
	// Native reports whether the current mode's model calls tools natively.
	Native() bool
	// Settings are the task's current settings.
	Settings() config.Settings
	// Env is a call's tool environment, with ui its UI.
	Env(ui tools.UI) *tools.Env
	// Ask posts a question and waits for its answer or ctx; it returns the question's row (-1
	// for a subagent, which asks nobody). why says why an approval is asked (nil otherwise).
	Ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, why *msg.Why) (tools.Answer, int, error)
	// ExpandUser expands mentions and slash commands in the user's words.
	ExpandUser(ctx context.Context, text string) string
	// Feedback is the user's words given with an answer, as the model reads them (expanded).
	Feedback(ctx context.Context, text string) llm.Content
	// ToolRan tells the agent the files (absolute) a tool read or changed.
	ToolRan(ctx context.Context, read, changed []string)
	// Condensed starts the history the model sees at summary (the PreCompact hooks first).
	Condensed(ctx context.Context, summary string)
}

// Deps is what a tool call reaches: the task's tools and, as interfaces, its owners and the
// task itself. Sub is nil unless the task is a subagent.
type Deps struct {
	Registry    *tools.Registry
	Task        Task
	Chat        Chat
	Guards      Guards
	Hooks       Hooks
	Checkpoints Checkpoints
	Background  Background
	Todo        Todo
	Sub         Sub
	// Policy is the workspace's policy files (nil: the settings alone decide approvals).
	Policy *policy.Set
	// Recorder receives the call and its approvals (telemetry.Nop when nothing is recorded).
	Recorder telemetry.Recorder
	// Now is the clock.
	Now func() time.Time
	// Bug reports a panic recovered in a tool (docs/conventions.md, "Bugs are reported and
	// survived").
	Bug func(where string, r any)
}
