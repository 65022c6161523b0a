package task

import (
	"context"
	"fmt"

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
	return append([]string(nil), t.conv.Meta().Workspace...)
}

// CheckpointAt returns the checkpoint of the checkpoint_created row at index.
func (t *Task) CheckpointAt(index int) (msg.Checkpoint, error) {
	ms := t.conv.Messages()
	if index < 0 || index >= len(ms) {
		return msg.Checkpoint{}, fmt.Errorf("%w: message %d does not exist", ErrBadRequest, index)
	}
	m := ms[index]
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
	end, err := t.state.BeginRestore()
	if err != nil {
		return err
	}
	// Nothing starts while restoring; the resume question is asked again at the end.
	defer end()

	// Withdraw an open resume question, then stop the loop (an answer racing the withdrawal
	// may have started it before restoring was set).
	if err := t.state.WithdrawResume(ctx); err != nil {
		return err
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
	// Nothing runs while restoring: the conversation is cut with nothing else writing to it.
	switch {
	case ferr == nil && kind&RestoreTask != 0:
		t.conv.Cut(index, cp.APIIndex)
		t.guards.Restart()
		t.state.Idle()
	default:
		// Nothing runs while restoring, so no question opens meanwhile.
		if t.asks.Open() == nil {
			t.conv.DropOpenResume()
		}
	}
	if ferr == nil {
		t.conv.Add(msg.Message{Type: msg.Say, Kind: msg.SayInfo, Text: restoredRow(kind, cp.Hash)})
	}
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
