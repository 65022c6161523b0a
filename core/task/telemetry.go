package task

import (
	"github.com/cairnhq/cairn/core/telemetry"
)

// What a task reports through Deps.Telemetry (core/telemetry; README "OpenTelemetry"): each
// run, each model request with its tokens and cost, each tool call with its outcome, each
// approval. No prompt or file content: a tool's main argument only when the recorder asks.

// recorderOf is the task's recorder, Nop when none is set.
func recorderOf(d Deps) telemetry.Recorder { return telemetry.Or(d.Telemetry) }

// runStatus names how a run ended.
func runStatus(e ending) string {
	switch e {
	case endCompleted:
		return "completed"
	case endCancelled:
		return "cancelled"
	}
	return "failed"
}

// requestOutcome names how a model request ended.
func requestOutcome(err error, cancelled bool) string {
	switch {
	case err == nil:
		return "ok"
	case cancelled:
		return "cancelled"
	}
	return "failed"
}
