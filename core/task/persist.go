package task

import (
	"context"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/task/conversation"
)

// Persistence is the conversation's (core/task/conversation): every record goes through its
// journal, and a write that fails stops the writes and is kept. The task pauses at its next
// step until the records are on disk again.

// journal is where a task's records go: *store.Log, or a failing one in tests.
type journal = conversation.Journal

// pauseUntilSaved holds the loop while the task cannot be saved: it shows the error, asks to
// resume, and tries the writes again on each answer. It returns nil once everything is on disk,
// or ctx's error.
func (t *Task) pauseUntilSaved(ctx context.Context) error {
	for {
		failure := t.conv.Failure()
		err := t.conv.Repair()
		if failure == nil {
			return nil
		}
		if err == nil {
			t.conv.Say(msg.SayInfo, "The task is saved again and continues.", nil, false)
			return nil
		}
		t.conv.Say(msg.SayError, "Cairn could not save this task ("+failure.Error()+"). It is paused so nothing more is lost: "+
			"the conversation is kept in memory and will be written once the data folder accepts writes again "+
			"(free disk space or fix its permissions), then press Resume.", nil, false)
		if _, err := t.ask(ctx, msg.AskResumeTask, "", nil); err != nil {
			return err
		}
	}
}

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
