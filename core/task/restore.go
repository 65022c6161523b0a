package task

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// RestoreKind says what a checkpoint restore puts back (docs/architecture.md, "Checkpoints and the
// first checkpoint").
type RestoreKind int

// Restore kinds.
const (
	// RestoreFiles puts the workspace files back as they were at the checkpoint.
	RestoreFiles RestoreKind = 1 << iota
	// RestoreTask cuts the conversation back to the checkpoint row.
	RestoreTask
	// RestoreBoth does both.
	RestoreBoth = RestoreFiles | RestoreTask
)

// FilesRestorer restores the workspace files to a checkpoint hash (built by the server, which
// owns the shadow repository).
type FilesRestorer func(ctx context.Context, hash string) error

// Workspace returns the task's workspace roots.
func (t *Task) Workspace() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.conv.meta.Workspace...)
}

// CheckpointAt returns the checkpoint of the checkpoint_created row at index.
func (t *Task) CheckpointAt(index int) (msg.Checkpoint, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if index < 0 || index >= len(t.conv.messages) {
		return msg.Checkpoint{}, fmt.Errorf("%w: message %d does not exist", ErrBadRequest, index)
	}
	m := t.conv.messages[index]
	cp, ok := m.Payload.(*msg.Checkpoint)
	if m.Type != msg.Say || m.Kind != msg.SayCheckpointCreated || !ok || cp.Hash == "" {
		return msg.Checkpoint{}, fmt.Errorf("%w: message %d is not a checkpoint", ErrBadRequest, index)
	}
	return *cp, nil
}

// Restore goes back to the checkpoint row at index: the files (through files), the
// conversation (messages after the row and the API history after the matching request are
// cut; their cost stays as one deleted_api_reqs row), or both. A running task is cancelled
// first; afterwards the task asks to be resumed. Subscribers get EventReset after a cut and
// must take a fresh snapshot.
func (t *Task) Restore(ctx context.Context, index int, kind RestoreKind, files FilesRestorer) error {
	if kind&RestoreBoth == 0 || kind&^RestoreBoth != 0 {
		return fmt.Errorf("%w: restore kind %d", ErrBadRequest, kind)
	}
	cp, err := t.CheckpointAt(index)
	if err != nil {
		return err
	}
	if kind&RestoreTask != 0 && cp.APIIndex <= 0 {
		return fmt.Errorf("%w: this checkpoint predates task restores; only its files can be restored", ErrBadRequest)
	}
	if kind&RestoreFiles != 0 && files == nil {
		return fmt.Errorf("%w: checkpoints are off for this task", ErrBadRequest)
	}
	t.mu.Lock()
	switch {
	case t.step.closed:
		t.mu.Unlock()
		return ErrClosed
	case t.step.restoring:
		t.mu.Unlock()
		return fmt.Errorf("%w: a restore is already running", ErrBusy)
	}
	t.step.restoring = true
	rq := t.asks.resume
	t.mu.Unlock()
	// Nothing starts while restoring; the resume question is asked again at the end.
	defer func() {
		t.mu.Lock()
		t.step.restoring = false
		t.askResumeLocked()
		t.mu.Unlock()
	}()

	// Withdraw an open resume question, then stop the loop (an answer racing the withdrawal
	// may have started it before restoring was set).
	if rq != nil {
		rq.cancel()
		if err := waitDone(ctx, rq.done); err != nil {
			return err
		}
	}
	if err := t.Cancel(ctx); err != nil {
		return err
	}

	var ferr error
	if kind&RestoreFiles != 0 {
		if err := files(ctx, cp.Hash); err != nil {
			ferr = fmt.Errorf("task: restore files to %s: %w", cp.Hash, err)
		}
	}
	t.mu.Lock()
	switch {
	case ferr == nil && kind&RestoreTask != 0:
		t.cutLocked(index, cp.APIIndex)
	default:
		t.dropOpenResumeLocked()
	}
	if ferr == nil {
		t.addMessageLocked(msg.Message{Type: msg.Say, Kind: msg.SayInfo, Text: restoredRow(kind, cp.Hash)})
	}
	t.mu.Unlock()
	return ferr
}

// restoredRow is the chat row that confirms a restore.
func restoredRow(kind RestoreKind, hash string) string {
	short := hash
	if len(short) > 7 {
		short = short[:7]
	}
	switch kind {
	case RestoreFiles:
		return "Restored the files to checkpoint " + short + "."
	case RestoreTask:
		return "Restored the task to checkpoint " + short + "; the files were left as they are."
	default:
		return "Restored the files and the task to checkpoint " + short + "."
	}
}

// dropOpenResumeLocked removes an unanswered resume question left as the last row (a fresh
// one is asked after the restore).
func (t *Task) dropOpenResumeLocked() {
	n := len(t.conv.messages)
	if n == 0 || t.asks.open != nil {
		return
	}
	last := t.conv.messages[n-1]
	if last.Type != msg.Ask || (last.Kind != msg.AskResumeTask && last.Kind != msg.AskResumeCompletedTask) {
		return
	}
	t.conv.messages = t.conv.messages[: n-1 : n-1]
	t.truncateMessagesLocked(n - 1)
	t.broker.Publish(Event{Kind: EventReset}, false)
}

// cutLocked keeps the messages up to and including index and the first apiLen API messages;
// the removed requests' usage is kept as one deleted_api_reqs row.
func (t *Task) cutLocked(index, apiLen int) {
	removed, count, saidLater := t.conv.requestsAfter(index)
	keep := index + 1
	t.conv.messages = append([]msg.Message(nil), t.conv.messages[:keep]...)
	t.truncateMessagesLocked(keep)
	if apiLen < len(t.conv.api) {
		t.conv.api = t.conv.api[:apiLen:apiLen]
		t.truncateAPILocked(apiLen)
	}
	if saidLater && apiLen > 0 && apiLen <= len(t.conv.api) {
		// Words the user sent while the tool ran (queued) went out with the tool's result,
		// the message this checkpoint keeps; their rows are cut, so they go from it too.
		if m, ok := withoutLaterFeedback(t.conv.api[apiLen-1]); ok {
			t.conv.api = t.conv.api[: apiLen-1 : apiLen-1]
			t.truncateAPILocked(apiLen - 1)
			t.appendAPILocked(m)
		}
	}
	t.conv.lastPersist = map[int]time.Time{}
	t.guards.Restart()
	t.conv.meta.Completed = false
	t.saveMetaLocked()
	if count > 0 {
		removed.Done = true
		m := msg.Message{Index: len(t.conv.messages), Time: t.deps.Now(), Type: msg.Say, Kind: msg.SayDeletedAPIReqs,
			Payload: &removed}
		t.conv.messages = append(t.conv.messages, m)
		t.persistLocked(m, true)
	}
	t.status = StatusIdle
	t.broker.Publish(Event{Kind: EventReset}, false)
}

// withoutLaterFeedback returns the user message m without the feedback blocks that follow its
// first block (the tool's result): those are messages the user queued while the tool ran.
// ok is false when m has none.
func withoutLaterFeedback(m llm.Message) (llm.Message, bool) {
	if m.Role != llm.RoleUser || len(m.Content) < 2 {
		return m, false
	}
	kept := []llm.Content{m.Content[0]}
	for _, c := range m.Content[1:] {
		if c.Type == llm.ContentText && strings.HasPrefix(c.Text, feedbackOpen) {
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == len(m.Content) {
		return m, false
	}
	m.Content = kept
	return m, true
}

// feedbackOpen starts every block that carries the user's own words to the model.
const feedbackOpen = "<feedback>\n"
