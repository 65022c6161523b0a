package task

import (
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task/conversation"
)

// Persistence is the conversation's (core/task/conversation): every record goes through its
// journal, and a write that fails stops the writes and is kept. The task pauses at its next
// step until the records are on disk again.

// journal is where a task's records go: *store.Log, or a failing one in tests.
type journal = conversation.Journal

// events publishes the conversation's changes to the task's subscribers (conversation.Observer).
type events struct{ t *Task }

func (e events) Added(m msg.Message) { e.t.broker.Publish(Event{Kind: EventAdded, Message: m}, false) }
func (e events) Appended(i int, delta string) {
	e.t.broker.Publish(Event{Kind: EventAppended, Index: i, Delta: delta}, true)
}
func (e events) Finalized(i int) { e.t.broker.Publish(Event{Kind: EventFinalized, Index: i}, false) }
func (e events) Updated(m msg.Message) {
	e.t.broker.Publish(Event{Kind: EventUpdated, Message: m}, false)
}
func (e events) Reset() { e.t.broker.Publish(Event{Kind: EventReset}, false) }
