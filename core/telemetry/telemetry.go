// Package telemetry is what a task reports for tracing and metrics, through a small interface
// core owns (README "OpenTelemetry"): a run of a task, its model requests and its tool calls
// (durations, tokens, cost, outcomes) and its approvals. The daemon's OpenTelemetry exporter
// (server/otel) implements it; without one, Nop reports nothing and nothing leaves the machine.
// What a task reports carries no prompt and no file content; Content fields hold a tool's
// main argument only when the recorder asked for it (Recorder.Content).
package telemetry

import "context"

// Recorder receives what tasks do. Its methods are called on the task's goroutines, must not
// block on the network, and must be safe for concurrent use. A Started method returns the
// context that carries what it started to the matching Ended call and to what happens inside
// it (a request inside a run, an approval inside a tool call). A tool call is started with
// the context of the request whose reply made it, after that request has ended: traces go
// task → request → tool call (README, "OpenTelemetry").
type Recorder interface {
	// Content reports whether the recorder wants the tools' arguments (a command line, a
	// path, a URL); false keeps them out.
	Content() bool
	RunStarted(ctx context.Context, r Run) context.Context
	RunEnded(ctx context.Context, status string)
	RequestStarted(ctx context.Context, model string) context.Context
	RequestEnded(ctx context.Context, r Request)
	ToolStarted(ctx context.Context, name, content string) context.Context
	ToolEnded(ctx context.Context, outcome string)
	Approval(ctx context.Context, a Approval)
}

// Run is a task's run: from a message to the end of the loop.
type Run struct {
	TaskID, Mode string
	// Sub is set for a subagent's run.
	Sub bool
}

// Request is a finished model request.
type Request struct {
	Model                                            string
	InputTokens, OutputTokens, CacheRead, CacheWrite int64
	// Cost is in USD (0 when the prices are unknown).
	Cost float64
	// Outcome is "ok", "cancelled" or "failed".
	Outcome string
}

// Approval is one approval decision: the category asked about, what the policy decided (run,
// ask, deny, refuse) and, for an ask, whether the user approved.
type Approval struct {
	Category, Verdict string
	Approved          bool
}

// Nop records nothing.
type Nop struct{}

var _ Recorder = Nop{}

// Content reports false: Nop records nothing, content least of all.
func (Nop) Content() bool { return false }

// RunStarted returns ctx unchanged.
func (Nop) RunStarted(ctx context.Context, _ Run) context.Context { return ctx }

// RunEnded does nothing.
func (Nop) RunEnded(context.Context, string) {}

// RequestStarted returns ctx unchanged.
func (Nop) RequestStarted(ctx context.Context, _ string) context.Context { return ctx }

// RequestEnded does nothing.
func (Nop) RequestEnded(context.Context, Request) {}

// ToolStarted returns ctx unchanged.
func (Nop) ToolStarted(ctx context.Context, _, _ string) context.Context { return ctx }

// ToolEnded does nothing.
func (Nop) ToolEnded(context.Context, string) {}

// Approval does nothing.
func (Nop) Approval(context.Context, Approval) {}

// Or is r, or Nop when r is nil.
func Or(r Recorder) Recorder {
	if r == nil {
		return Nop{}
	}
	return r
}
