package otel

import (
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/telemetry"
)

// The daemon and its exporter (server/otel/exporter, run as `cairn-helper otel`) talk over the
// helper's stdin, one JSON object a line: a Config first, then one Event per call of the
// Recorder, in the order the calls were made. Both ends are built from this file, and the
// helper ships beside the daemon that starts it (core/helper), so the format needs no version.

// Config is the first line: what the exporter needs besides the OTEL_* variables, which it
// reads from the environment it inherits from the daemon.
type Config struct {
	// Version is the daemon's version, the resource's service.version.
	Version string `json:"version"`
	// Egress is the daemon's outbound configuration: its proxy and extra authorities
	// (README, "Networks of organisations").
	Egress egress.Config `json:"egress"`
}

// EventKind names the Recorder method an Event stands for.
type EventKind string

// The kinds of Event, one per method of telemetry.Recorder that reports something.
const (
	RunStarted     EventKind = "run.start"
	RunEnded       EventKind = "run.end"
	RequestStarted EventKind = "request.start"
	RequestEnded   EventKind = "request.end"
	ToolStarted    EventKind = "tool.start"
	ToolEnded      EventKind = "tool.end"
	Approval       EventKind = "approval"
)

// Event is one call of the Recorder. Spans are named by numbers the daemon hands out (never
// 0); a context carries the number of the span it started.
type Event struct {
	Kind EventKind `json:"kind"`
	// Span is the span a start event opens, or the one an end or approval event is about (the
	// span its context carries; 0 when it carries none).
	Span uint64 `json:"span,omitempty"`
	// Parent is, for a start event, the span its context carried (0: a new trace).
	Parent uint64 `json:"parent,omitempty"`
	// Time is when the call was made, in nanoseconds since the Unix epoch: spans start and
	// end at the daemon's times, however late the exporter reads them.
	Time int64 `json:"time"`

	// Run is RunStarted's run.
	Run *telemetry.Run `json:"run,omitempty"`
	// Model is RequestStarted's model.
	Model string `json:"model,omitempty"`
	// Request is RequestEnded's request.
	Request *telemetry.Request `json:"request,omitempty"`
	// Tool and Content are ToolStarted's tool and main argument (Content only when the
	// recorder asked for content; see ContentEnv).
	Tool    string `json:"tool,omitempty"`
	Content string `json:"content,omitempty"`
	// Status is RunEnded's status or ToolEnded's outcome.
	Status string `json:"status,omitempty"`
	// Approval is Approval's decision.
	Approval *telemetry.Approval `json:"approval,omitempty"`
}
