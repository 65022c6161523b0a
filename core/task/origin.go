package task

import "time"

// Origin returns what the board shows of where a loaded task comes from: the task that
// started it as a subtask ("": none; Options.Parent) and when it was created.
func (m *Manager) Origin(t *Task) (parent string, created time.Time) {
	meta := t.conv.Meta()
	return meta.Parent, meta.Created
}
