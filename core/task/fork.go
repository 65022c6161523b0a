package task

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/checkpoints"
	"github.com/cairnhq/cairn/core/task/conversation"
)

// ForkFiles gives a fork its files: given the new task's id and the checkpoint it is forked
// from, it returns the new task's workspace roots (a new worktree with the checkpoint's files
// in it, README "Fork from any message") and a note for the new task's chat ("": none). The
// server builds it; core/task knows no git.
type ForkFiles func(ctx context.Context, id string, roots []string, p checkpoints.Point) (workspace []string, note string, err error)

// Fork starts a new task from message index of task id (loaded or saved): its conversation is
// the original's up to that message's checkpoint (checkpoints.Of), its files what files makes
// of the checkpoint. The original is only read. The new task is loaded idle, asking to be
// resumed, with hostID's editor; it is returned with the checkpoint it came from.
func (m *Manager) Fork(ctx context.Context, id string, index int, hostID string, files ForkFiles) (*Task, checkpoints.Point, error) {
	if m.store == nil {
		return nil, checkpoints.Point{}, fmt.Errorf("%w: tasks are not saved, so none can be forked", ErrBadRequest)
	}
	meta, ms, api, err := m.source(id)
	if err != nil {
		return nil, checkpoints.Point{}, err
	}
	p, err := checkpoints.Of(ms, index)
	if err != nil {
		return nil, checkpoints.Point{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	rows, hist := conversation.Forked(ms, api, p.Row, p.APIIndex)
	newID := NewID()
	roots, note, err := files(ctx, newID, meta.Workspace, p)
	if err != nil {
		return nil, p, err
	}
	now := time.Now()
	fork := store.Meta{ID: newID, Title: forkTitle(meta.Title), Workspace: roots, Model: meta.Model, Included: meta.Included,
		Mode: meta.Mode, Created: now, Updated: now, FocusChain: meta.FocusChain, Overrides: meta.Overrides, Parent: meta.Parent}
	if err := m.writeFork(fork, rows, hist, note); err != nil {
		return nil, p, err
	}
	t, err := m.Open(ctx, newID, hostID)
	return t, p, err
}

// source reads a task's header, rows and API history: from memory when it is loaded (a
// running task's rows so far), else from the store.
func (m *Manager) source(id string) (store.Meta, []msg.Message, []llm.Message, error) {
	if t, ok := m.Get(id); ok {
		var meta store.Meta
		var ms []msg.Message
		var api []llm.Message
		t.conv.Read(func(rows []msg.Message, hist []llm.Message, mt *store.Meta) {
			meta, ms, api = *mt, append([]msg.Message(nil), rows...), append([]llm.Message(nil), hist...)
		})
		return meta, ms, api, nil
	}
	loaded, err := m.store.Read(id)
	if err != nil {
		return store.Meta{}, nil, nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return loaded.Meta, loaded.Messages, loaded.API, nil
}

// writeFork saves the fork's header, rows (and the note as an info row) and API history.
func (m *Manager) writeFork(meta store.Meta, rows []msg.Message, hist []llm.Message, note string) (err error) {
	log, err := m.store.Create(meta)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, log.Close()) }()
	if note != "" {
		rows = append(rows, msg.Message{Index: len(rows), Time: meta.Created, Type: msg.Say, Kind: msg.SayInfo, Text: note})
	}
	for i, r := range rows {
		if err := log.AppendMessage(r, i == len(rows)-1); err != nil {
			return fmt.Errorf("fork: %w", err)
		}
	}
	for _, h := range hist {
		if err := log.AppendAPI(h); err != nil {
			return fmt.Errorf("fork: %w", err)
		}
	}
	return nil
}

// forkTitle names a fork after its original.
func forkTitle(t string) string {
	if strings.HasPrefix(t, "Fork of ") {
		return t
	}
	return "Fork of " + t
}
