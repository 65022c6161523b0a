package prompt

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/cairnhq/cairn/core/lazy"
)

//go:embed feedback/*.md
var feedbackFS embed.FS

// feedbackTmpl is parsed on first use, not at start-up (the daemon's start time is a target).
var feedbackTmpl = lazy.Value[*template.Template]{New: func() *template.Template {
	return template.Must(template.New("feedback").ParseFS(feedbackFS, "feedback/*.md"))
}}

// feedback renders one note. The templates are fixed and every one is exercised by the
// tests, so an execution error is a bug; the note then degrades to the bare template name
// rather than taking the loop down (docs/conventions.md, "Bugs are reported and survived").
func feedback(name string, data any) string {
	var b bytes.Buffer
	if err := feedbackTmpl.Get().ExecuteTemplate(&b, name+".md", data); err != nil {
		return "[" + name + "]"
	}
	return strings.TrimSpace(b.String())
}

// NoToolsUsed is the reply to a response that contained no tool call: it restates the call
// format and the ways to move on (attempt_completion, ask_followup_question).
func NoToolsUsed() string { return feedback("no_tools", struct{ Native bool }{}) }

// NoToolsUsedNative is NoToolsUsed for a model that calls tools natively: the reminder
// points at function calling rather than the XML format.
func NoToolsUsedNative() string { return feedback("no_tools", struct{ Native bool }{true}) }

// NotRun is the result of a native tool call made after the first one in a response: it was
// never executed.
func NotRun() string { return feedback("not_run", nil) }

// NoResult stands in for the result of a native tool call whose result the history lacks (the
// task stopped after the call, or a condense dropped it), since providers reject a call
// without one.
func NoResult() string { return feedback("no_result", nil) }

// MissingParam is the reply to a call that left out a required parameter, with a format
// reminder. (tools.MissingParam is the short result a tool itself returns.)
func MissingParam(tool, param string) string {
	return feedback("missing_param", struct {
		Tool, Param string
		Native      bool
	}{tool, param, false})
}

// MissingParamNative is MissingParam for a model that calls tools natively.
func MissingParamNative(tool, param string) string {
	return feedback("missing_param", struct {
		Tool, Param string
		Native      bool
	}{tool, param, true})
}

// TooManyMistakes is sent after the user chose to proceed past the consecutive-mistake limit;
// userFeedback is what they typed (may be empty).
func TooManyMistakes(userFeedback string) string {
	return feedback("too_many_mistakes", strings.TrimSpace(userFeedback))
}

// ToolDenied is the result of a tool call the user rejected.
func ToolDenied() string { return feedback("tool_denied", nil) }

// ToolError wraps an error message as a tool result:
// "The tool execution failed with the following error:\n<error>\n{msg}\n</error>".
func ToolError(msg string) string { return feedback("tool_error", strings.TrimSpace(msg)) }

// ResumeNote opens the first user turn after a task is resumed. elapsed is the time since
// the task's last message, completed reports whether it had ended with an accepted
// attempt_completion, and mode is "act" or "plan".
func ResumeNote(elapsed time.Duration, completed bool, mode string) string {
	return feedback("resume", struct {
		Ago             string
		Completed, Plan bool
	}{agoText(elapsed), completed, strings.EqualFold(mode, "plan")})
}

// interruptedOutputMax bounds the output InterruptedCommand repeats: its end is kept.
const interruptedOutputMax = 4000

// InterruptedCommand follows the resume note when the task was interrupted while its last
// command ran: the command had started (and printed output, its end kept), so its missing
// result does not mean it did not run.
func InterruptedCommand(command, output string) string {
	output = strings.TrimSpace(output)
	if len(output) > interruptedOutputMax {
		output = "…" + strings.ToValidUTF8(output[len(output)-interruptedOutputMax:], "")
	}
	return feedback("interrupted_command", struct{ Command, Output string }{command, output})
}

// SwitchedToAct answers an open plan_mode_respond when the user switches to ACT MODE.
func SwitchedToAct() string { return feedback("switched_to_act", nil) }

// FocusChainReminder asks the model to create (first) or update the todo list; list is the
// current Markdown checklist, ignored when first is set.
func FocusChainReminder(list string, first bool) string {
	return feedback("focus_chain", struct {
		List  string
		First bool
	}{strings.TrimSpace(list), first})
}

// PlanModeRefusal is the error text for a tool that may not run in PLAN MODE.
func PlanModeRefusal(tool string) string { return feedback("plan_refusal", tool) }

// EditFailedRepeatedly is added after several failed edits of the same file (path as the
// model wrote it): re-read the file, or rewrite it with write_to_file.
func EditFailedRepeatedly(path string) string { return feedback("edit_failed", path) }

// MultipleToolsNote tells the model that the tool calls after the first one in its message
// were not executed.
func MultipleToolsNote() string { return feedback("multiple_tools", nil) }

// CutOff is the next user turn after a reply that ended early: at the output-token limit
// (limit) or without closing its tool call. tool names the call that was not run ("" when
// the reply had none). The model is asked for smaller steps.
func CutOff(tool string, limit bool) string {
	return feedback("cut_off", struct {
		Tool  string
		Limit bool
	}{tool, limit})
}

// ElidedParam replaces the rest of a long parameter of a tool call that was cut off, in the
// recorded history; n is the parameter's full length.
func ElidedParam(n int) string { return feedback("elided", n) }

// Interrupted marks an assistant message the user cut short.
func Interrupted() string { return feedback("interrupted", nil) }

// CutCall stands in the history for a native tool call whose arguments were cut off: the
// call itself is not recorded, since it never ran and has no result.
func CutCall(tool string) string { return feedback("cut_call", tool) }

// agoText renders elapsed time the way a person would say it.
func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	default:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// BackgroundGone follows the resumption note of a task that had left commands running in the
// background (README "Commands that keep running"): they are gone.
func BackgroundGone() string { return feedback("background_gone", nil) }
