package task

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// Persistence. Every record of a task goes through its journal (the store's log). A write that
// fails (disk full, read-only or vanished data dir) is never ignored: the task keeps the whole
// conversation in memory, stops writing so the files stay a consistent prefix of it, and
// pauses at its next step with a clear error. When the user resumes, the missing records are
// written again; the task goes on only once they are on disk.

// journal is where a task's records go: *store.Log, or a failing one in tests.
type journal interface {
	AppendMessage(m msg.Message, sync bool) error
	TruncateMessages(n int) error
	AppendAPI(m llm.Message) error
	TruncateAPI(n int) error
	SaveMeta(m store.Meta) error
	Close() error
	// Dir is the task's folder, where the scratch folder lives (scratch.go).
	Dir() string
}

// saved tracks what is missing on disk after a failure (all fields guarded by Task.mu).
type saved struct {
	// err is the first write that failed and has not been repaired; while it is set nothing
	// more is written, so the files stay a consistent prefix of the task.
	err error
	// messagesFrom and apiFrom are the first message and API record that must be written
	// again (-1: none).
	messagesFrom, apiFrom int
}

func (s *saved) reset() { *s = saved{messagesFrom: -1, apiFrom: -1} }

// dirty lowers *from to i: record i and everything after it must be written again.
func dirty(from *int, i int) {
	if *from < 0 || i < *from {
		*from = i
	}
}

// failedLocked records a write that failed.
func (t *Task) failedLocked(what string, err error) {
	if t.conv.saved.err == nil {
		t.conv.saved.err = fmt.Errorf("saving the %s: %w", what, err)
		t.logger().Error("task: persistence failed; the task pauses", "task", t.id, "err", err)
	}
}

// persistLocked writes a message record. Partial records are written at most once a second per
// message; completed ones are synced.
func (t *Task) persistLocked(m msg.Message, sync bool) {
	if t.conv.log == nil {
		return
	}
	if t.conv.saved.err != nil {
		dirty(&t.conv.saved.messagesFrom, m.Index)
		return
	}
	if !sync {
		now := t.deps.Now()
		if last, ok := t.conv.lastPersist[m.Index]; ok && now.Sub(last) < time.Second {
			return
		}
		t.conv.lastPersist[m.Index] = now
	} else {
		delete(t.conv.lastPersist, m.Index)
	}
	if err := t.conv.log.AppendMessage(m, sync); err != nil {
		dirty(&t.conv.saved.messagesFrom, m.Index)
		t.failedLocked("conversation", err)
	}
}

// truncateMessagesLocked cuts the message records to n.
func (t *Task) truncateMessagesLocked(n int) {
	if t.conv.log == nil {
		return
	}
	if t.conv.saved.err != nil {
		dirty(&t.conv.saved.messagesFrom, n)
		return
	}
	if err := t.conv.log.TruncateMessages(n); err != nil {
		dirty(&t.conv.saved.messagesFrom, n)
		t.failedLocked("conversation", err)
	}
}

func (t *Task) appendAPI(m llm.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.appendAPILocked(m)
}

// appendAPILocked is appendAPI with t.mu held.
func (t *Task) appendAPILocked(m llm.Message) {
	t.conv.api = append(t.conv.api, m)
	if t.conv.log == nil {
		return
	}
	if t.conv.saved.err != nil {
		dirty(&t.conv.saved.apiFrom, len(t.conv.api)-1)
		return
	}
	if err := t.conv.log.AppendAPI(m); err != nil {
		dirty(&t.conv.saved.apiFrom, len(t.conv.api)-1)
		t.failedLocked("model history", err)
	}
}

// truncateAPILocked cuts the API records to n.
func (t *Task) truncateAPILocked(n int) {
	if t.conv.log == nil {
		return
	}
	if t.conv.saved.err != nil {
		dirty(&t.conv.saved.apiFrom, n)
		return
	}
	if err := t.conv.log.TruncateAPI(n); err != nil {
		dirty(&t.conv.saved.apiFrom, n)
		t.failedLocked("model history", err)
	}
}

// saveMetaLocked writes the task header (the repair writes it last in any case).
func (t *Task) saveMetaLocked() {
	t.conv.meta.Updated = t.deps.Now()
	if t.conv.log == nil || t.conv.saved.err != nil {
		return
	}
	if err := t.conv.log.SaveMeta(t.conv.meta); err != nil {
		t.failedLocked("task header", err)
	}
}

// repairLocked writes again what a failure left out: the records from the first missing one
// on, then the header. It clears the failure only when everything is on disk.
func (t *Task) repairLocked() error {
	if t.conv.log == nil || t.conv.saved.err == nil {
		return nil
	}
	if from := t.conv.saved.messagesFrom; from >= 0 {
		if err := t.conv.log.TruncateMessages(from); err != nil {
			return err
		}
		for _, m := range t.conv.messages[from:] {
			if err := t.conv.log.AppendMessage(m, !m.Partial); err != nil {
				return err
			}
			t.conv.saved.messagesFrom++
		}
	}
	if from := t.conv.saved.apiFrom; from >= 0 {
		if err := t.conv.log.TruncateAPI(from); err != nil {
			return err
		}
		for _, m := range t.conv.api[from:] {
			if err := t.conv.log.AppendAPI(m); err != nil {
				return err
			}
			t.conv.saved.apiFrom++
		}
	}
	if err := t.conv.log.SaveMeta(t.conv.meta); err != nil {
		return err
	}
	t.conv.saved.reset()
	t.conv.lastPersist = map[int]time.Time{}
	return nil
}

// pauseUntilSaved holds the loop while the task cannot be saved: it shows the error, asks to
// resume, and tries the writes again on each answer. It returns nil once everything is on disk,
// or ctx's error.
func (t *Task) pauseUntilSaved(ctx context.Context) error {
	for {
		t.mu.Lock()
		failure := t.conv.saved.err
		err := t.repairLocked()
		t.mu.Unlock()
		if failure == nil {
			return nil
		}
		if err == nil {
			t.say(msg.SayInfo, "The task is saved again and continues.", nil, false)
			return nil
		}
		t.say(msg.SayError, "Cairn could not save this task ("+failure.Error()+"). It is paused so nothing more is lost: "+
			"the conversation is kept in memory and will be written once the data folder accepts writes again "+
			"(free disk space or fix its permissions), then press Resume.", nil, false)
		if _, err := t.ask(ctx, msg.AskResumeTask, "", nil); err != nil {
			return err
		}
	}
}
