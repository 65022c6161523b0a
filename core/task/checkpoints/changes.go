package checkpoints

import "github.com/cairnhq/cairn/core/msg"

// A completion offers "See new changes" only when the workspace differs from what it was at
// the previous completion (README, its opening: "See new changes"). Checkpoints are taken
// after edits and commands, not after every kind of step (an MCP call, a subagent, a command a
// hook blocked), so the task takes one more just before the completion row: whatever any step
// did is in it. The checkpoint rows' hashes then say whether anything changed: the latest
// one against the one that stood at the previous completion (or the task's first).

// changedSinceCompletion reports whether the latest checkpoint row has another hash than the
// last one before the previous completion row (the task's first checkpoint when there is no
// earlier completion). A resumed task may post the same hash again: hashes are compared, not
// rows counted.
func changedSinceCompletion(ms []msg.Message) bool {
	hashAt := func(i int) string {
		if m := ms[i]; m.Type == msg.Say && m.Kind == msg.SayCheckpointCreated {
			if cp, ok := m.Payload.(*msg.Checkpoint); ok {
				return cp.Hash
			}
		}
		return ""
	}
	latest, base := "", ""
	prevDone := false
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if m.Type == msg.Say && m.Kind == msg.SayCompletionResult {
			prevDone = true
			continue
		}
		h := hashAt(i)
		if h == "" {
			continue
		}
		if latest == "" {
			latest = h
		}
		if prevDone {
			base = h
			break
		}
	}
	if base == "" { // no earlier completion with a checkpoint before it: the task's first
		for i := range ms {
			if h := hashAt(i); h != "" {
				base = h
				break
			}
		}
	}
	return latest != "" && latest != base
}
