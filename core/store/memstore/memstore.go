// Package memstore is an in-memory task store with the file store's contract (checked by the
// same storetest suite), for tests that do not need a disk. Records are kept encoded, as the
// file store keeps them, so a message read back is a copy, never the caller's value.
package memstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// Store holds tasks in memory. It is safe for concurrent use.
type Store struct {
	// mu guards tasks and every task's fields.
	mu    sync.Mutex
	tasks map[string]*task
}

type task struct {
	meta     []byte   // JSON of store.Meta
	messages [][]byte // encoded messages, folded by index
	api      [][]byte // encoded llm.Message
	size     int64    // bytes appended, as the file store's logs would grow
}

// New returns an empty store.
func New() *Store { return &Store{tasks: map[string]*task{}} }

func checkID(id string) error {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return fmt.Errorf("memstore: bad task id %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// Create makes a new task and returns its log.
func (s *Store) Create(meta store.Meta) (*Log, error) {
	if err := checkID(meta.ID); err != nil {
		return nil, err
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("memstore: %w", err)
	}
	s.mu.Lock()
	s.tasks[meta.ID] = &task{meta: b}
	s.mu.Unlock()
	return &Log{s: s, id: meta.ID}, nil
}

// Loaded is a task read back.
type Loaded struct {
	Meta     store.Meta
	Messages []msg.Message
	API      []llm.Message
	Log      *Log
}

// Load reads a task and returns a log to append to it.
func (s *Store) Load(id string) (*Loaded, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		return nil, fmt.Errorf("memstore: %s: %w", id, store.ErrNotFound)
	}
	out := &Loaded{Log: &Log{s: s, id: id}}
	if err := json.Unmarshal(t.meta, &out.Meta); err != nil {
		return nil, fmt.Errorf("memstore: %w", err)
	}
	for _, b := range t.messages {
		m, err := store.DecodeMessage(b)
		if err != nil {
			return nil, err
		}
		out.Messages = append(out.Messages, m)
	}
	for _, b := range t.api {
		var m llm.Message
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("memstore: %w", err)
		}
		out.API = append(out.API, m)
	}
	return out, nil
}

// List returns every task's metadata, newest first.
func (s *Store) List() ([]store.Meta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]store.Meta, 0, len(s.tasks))
	for _, t := range s.tasks {
		var m store.Meta
		if err := json.Unmarshal(t.meta, &m); err != nil {
			return nil, fmt.Errorf("memstore: %w", err)
		}
		m.SizeBytes = int64(len(t.meta)) + t.size
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// Delete removes tasks; unknown ids are ignored, as removing a missing folder is.
func (s *Store) Delete(ids ...string) error {
	for _, id := range ids {
		if err := checkID(id); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.tasks, id)
	}
	return nil
}

// UpdateMeta changes a task's metadata.
func (s *Store) UpdateMeta(id string, fn func(*store.Meta)) error {
	if err := checkID(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		return fmt.Errorf("memstore: %s: %w", id, store.ErrNotFound)
	}
	var m store.Meta
	if err := json.Unmarshal(t.meta, &m); err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	fn(&m)
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	t.meta = b
	return nil
}

// Log appends to one task.
type Log struct {
	s  *Store
	id string

	// closed is guarded by s.mu.
	closed bool
}

var errClosed = errors.New("memstore: log closed")

// with runs fn on the task under the store's lock.
func (l *Log) with(fn func(t *task) error) error {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	if l.closed {
		return errClosed
	}
	t, ok := l.s.tasks[l.id]
	if !ok {
		return fmt.Errorf("memstore: %s: %w", l.id, store.ErrNotFound)
	}
	return fn(t)
}

// AppendMessage records a new message or a new version of one (same Index); sync is ignored.
func (l *Log) AppendMessage(m msg.Message, _ bool) error {
	b, err := store.EncodeMessage(m)
	if err != nil {
		return err
	}
	return l.with(func(t *task) error {
		switch {
		case m.Index >= 0 && m.Index < len(t.messages):
			t.messages[m.Index] = b
		case m.Index == len(t.messages):
			t.messages = append(t.messages, b)
		default:
			return fmt.Errorf("memstore: message %d after %d messages: %w", m.Index, len(t.messages), store.ErrBadRecord)
		}
		t.size += int64(len(b))
		return nil
	})
}

// TruncateMessages cuts the message list to its first n messages.
func (l *Log) TruncateMessages(n int) error {
	return l.with(func(t *task) error {
		if n < 0 || n > len(t.messages) {
			return fmt.Errorf("memstore: cut to %d of %d messages: %w", n, len(t.messages), store.ErrBadRecord)
		}
		t.messages = t.messages[:n]
		return nil
	})
}

// AppendAPI records one API-history message.
func (l *Log) AppendAPI(m llm.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	return l.with(func(t *task) error {
		t.api = append(t.api, b)
		t.size += int64(len(b))
		return nil
	})
}

// TruncateAPI cuts API history to n messages.
func (l *Log) TruncateAPI(n int) error {
	return l.with(func(t *task) error {
		if n >= 0 && n <= len(t.api) {
			t.api = t.api[:n]
		}
		return nil
	})
}

// SaveMeta replaces the metadata.
func (l *Log) SaveMeta(m store.Meta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	return l.with(func(t *task) error {
		t.meta = b
		return nil
	})
}

// Close ends the log; appending afterwards fails.
func (l *Log) Close() error {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.closed = true
	return nil
}
