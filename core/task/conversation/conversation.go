// Package conversation is what a task says and remembers: the chat rows, the API history the
// model reads, the header (store.Meta) and the journal they are written to. It owns them under
// one lock of its own (docs/task-runtime.md); every change is written before it is published,
// so a client never sees a message complete that a crash right after could lose.
//
// Persistence. Every record goes through the journal (the store's log). A write that fails
// (disk full, read-only or vanished data dir) is never ignored: the conversation stays whole
// in memory, nothing more is written so the files stay a consistent prefix of it, and Failure
// reports it until Repair has written again what is missing.
package conversation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// Journal is where a conversation's records go: *store.Log, or a failing one in tests.
type Journal interface {
	AppendMessage(m msg.Message, sync bool) error
	TruncateMessages(n int) error
	AppendAPI(m llm.Message) error
	TruncateAPI(n int) error
	SaveMeta(m store.Meta) error
	Close() error
	// Dir is the task's folder, where its scratch folder lives.
	Dir() string
}

// Observer is told each change of the chat rows. It is called with the conversation's lock
// held, in the order of the changes, and must not call back into the conversation (the task
// publishes to its event broker, whose lock is taken after this one).
type Observer interface {
	Added(m msg.Message)
	Appended(index int, delta string)
	Finalized(index int)
	Updated(m msg.Message)
	// Reset says the rows were cut (a restore): subscribers start over from a snapshot.
	Reset()
}

// Conversation is one task's conversation, safe for concurrent use.
type Conversation struct {
	now    func() time.Time
	obs    Observer
	failed func(err error) // told of the first write that failed, for the log

	// mu guards every field below.
	mu       sync.Mutex
	messages []msg.Message
	api      []llm.Message
	meta     store.Meta
	log      Journal // nil: not saved
	// saved is what a failed write left off the disk.
	saved saved
	// lastPersist is when each partial message was last written (at most once a second).
	lastPersist map[int]time.Time
}

// saved tracks what is missing on disk after a failure.
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

// New returns the conversation of a task with header meta, written to log (nil: not saved),
// dated by now, its changes told to obs and its first failed write to failed.
func New(meta store.Meta, log Journal, now func() time.Time, obs Observer, failed func(error)) *Conversation {
	c := &Conversation{now: now, obs: obs, failed: failed, meta: meta, log: log, lastPersist: map[int]time.Time{}}
	c.saved.reset()
	return c
}

// Add appends a row (its index and, when unset, its time filled in), writes and publishes it,
// and returns its index.
func (c *Conversation) Add(m msg.Message) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.addLocked(m)
}

func (c *Conversation) addLocked(m msg.Message) int {
	m.Index = len(c.messages)
	if m.Time.IsZero() {
		m.Time = c.now()
	}
	c.messages = append(c.messages, m)
	c.persistLocked(m, !m.Partial)
	c.obs.Added(m)
	return m.Index
}

// Update replaces row i by what fn makes of it. When only text grew and the row stays
// partial, the appended delta is published; otherwise the whole row.
func (c *Conversation) Update(i int, fn func(m *msg.Message)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updateLocked(i, fn)
}

func (c *Conversation) updateLocked(i int, fn func(m *msg.Message)) {
	if i < 0 || i >= len(c.messages) {
		return
	}
	old := c.messages[i]
	m := old
	fn(&m)
	c.messages[i] = m
	if old.Partial && len(m.Text) >= len(old.Text) && strings.HasPrefix(m.Text, old.Text) &&
		old.Payload == m.Payload && sameRest(old, m) {
		// A payload kept by pointer streams text only; a new payload object is sent whole.
		c.persistLocked(m, !m.Partial)
		if len(m.Text) > len(old.Text) {
			c.obs.Appended(i, m.Text[len(old.Text):])
		}
		if !m.Partial {
			c.obs.Finalized(i)
		}
		return
	}
	c.persistLocked(m, !m.Partial)
	c.obs.Updated(m)
}

// sameRest reports that only Text and Partial may differ between two versions of a row.
func sameRest(a, b msg.Message) bool {
	return a.Type == b.Type && a.Kind == b.Kind && len(a.Images) == len(b.Images) && len(a.Files) == len(b.Files)
}

// Say posts a say row. A say of the same kind as a recent partial say (the last few rows: a
// question may have been asked meanwhile) replaces that row's text and, when given, its
// payload; clients receive only the appended text.
func (c *Conversation) Say(kind msg.Kind, text string, payload msg.Payload, partial bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.messages) - 1; i >= 0 && i >= len(c.messages)-4; i-- {
		if m := c.messages[i]; m.Partial && m.Type == msg.Say && m.Kind == kind {
			c.updateLocked(i, func(m *msg.Message) {
				m.Text, m.Partial = text, partial
				if payload != nil {
					m.Payload = payload
				}
			})
			return i
		}
	}
	return c.addLocked(msg.Message{Type: msg.Say, Kind: kind, Text: text, Payload: payload, Partial: partial})
}

// FinishPartials marks every partial row among the last 50 complete (end of a stream,
// cancel, crash).
func (c *Conversation) FinishPartials() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.messages) - 1; i >= 0 && i >= len(c.messages)-50; i-- {
		if c.messages[i].Partial {
			c.updateLocked(i, func(m *msg.Message) { m.Partial = false })
		}
	}
}

// Attach gives the last row the user's images and files (a new task's first row), written
// again when there are any, so a resumed task shows them too.
func (c *Conversation) Attach(images, files []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.messages)
	if n == 0 {
		return
	}
	c.messages[n-1].Images = images
	c.messages[n-1].Files = files
	if len(images)+len(files) > 0 {
		c.persistLocked(c.messages[n-1], true)
	}
}

// Messages returns a copy of the rows.
func (c *Conversation) Messages() []msg.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.messages)
}

// Read calls fn with the rows, the API history and the header as they stand, under the lock:
// fn reads them, keeps nothing of them, and does not call back into the conversation.
func (c *Conversation) Read(fn func(ms []msg.Message, api []llm.Message, meta *store.Meta)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(c.messages, c.api, &c.meta)
}

// Meta returns the header.
func (c *Conversation) Meta() store.Meta {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.meta
}

// SetMeta changes the header with fn, dates it and writes it.
func (c *Conversation) SetMeta(fn func(m *store.Meta)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(&c.meta)
	c.saveMetaLocked()
}

// AddUsage adds a request's usage and cost to the header and writes it; a reported total
// becomes the context size unless only a subagent's cost is charged (context false).
func (c *Conversation) AddUsage(u llm.Usage, cost float64, context bool) {
	c.SetMeta(func(m *store.Meta) {
		m.TokensIn += u.InputTokens
		m.TokensOut += u.OutputTokens
		m.CacheReads += u.CacheReadTokens
		m.CacheWrites += u.CacheWriteTokens
		m.Cost += cost
		if total := u.Total(); context && total > 0 {
			m.ContextTokens = total
		}
	})
}

// History returns a copy of the API history.
func (c *Conversation) History() []llm.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.api)
}

// AppendAPI appends a message to the API history and writes it.
func (c *Conversation) AppendAPI(m llm.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.appendAPILocked(m)
}

// TakeUnanswered removes a user turn left without an answer at the end of the API history (the
// request was in flight) and returns it, for the next turn to carry.
func (c *Conversation) TakeUnanswered() (llm.Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.api)
	if n == 0 || c.api[n-1].Role != llm.RoleUser {
		return llm.Message{}, false
	}
	m := c.api[n-1]
	c.api = c.api[:n-1]
	c.truncateAPILocked(n - 1)
	return m, true
}

// Dir is the task's folder in the store ("" when the task is not saved).
func (c *Conversation) Dir() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.log == nil {
		return ""
	}
	return c.log.Dir()
}

// WrapJournal replaces the journal by what wrap makes of it (tests put a failing one
// between).
func (c *Conversation) WrapJournal(wrap func(Journal) Journal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = wrap(c.log)
}

// Close closes the journal; nothing is written after. It returns what a failure left unsaved
// and the close's own error.
func (c *Conversation) Close() (unsaved, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	unsaved = c.saved.err
	if c.log != nil {
		err = c.log.Close()
		c.log = nil
	}
	return unsaved, err
}

// Failure is the first write that failed and is not repaired (nil: everything is on disk).
func (c *Conversation) Failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.saved.err
}

// Repair writes again what a failure left out: the records from the first missing one on,
// then the header. It clears the failure only once everything is on disk.
func (c *Conversation) Repair() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.log == nil || c.saved.err == nil {
		return nil
	}
	if from := c.saved.messagesFrom; from >= 0 {
		if err := c.log.TruncateMessages(from); err != nil {
			return err
		}
		for _, m := range c.messages[from:] {
			if err := c.log.AppendMessage(m, !m.Partial); err != nil {
				return err
			}
			c.saved.messagesFrom++
		}
	}
	if from := c.saved.apiFrom; from >= 0 {
		if err := c.log.TruncateAPI(from); err != nil {
			return err
		}
		for _, m := range c.api[from:] {
			if err := c.log.AppendAPI(m); err != nil {
				return err
			}
			c.saved.apiFrom++
		}
	}
	if err := c.log.SaveMeta(c.meta); err != nil {
		return err
	}
	c.saved.reset()
	c.lastPersist = map[int]time.Time{}
	return nil
}

func (c *Conversation) failedLocked(what string, err error) {
	if c.saved.err == nil {
		c.saved.err = fmt.Errorf("saving the %s: %w", what, err)
		if c.failed != nil {
			c.failed(err)
		}
	}
}

// persistLocked writes a row. Partial rows are written at most once a second each; completed
// ones are synced.
func (c *Conversation) persistLocked(m msg.Message, sync bool) {
	if c.log == nil {
		return
	}
	if c.saved.err != nil {
		dirty(&c.saved.messagesFrom, m.Index)
		return
	}
	if !sync {
		now := c.now()
		if last, ok := c.lastPersist[m.Index]; ok && now.Sub(last) < time.Second {
			return
		}
		c.lastPersist[m.Index] = now
	} else {
		delete(c.lastPersist, m.Index)
	}
	if err := c.log.AppendMessage(m, sync); err != nil {
		dirty(&c.saved.messagesFrom, m.Index)
		c.failedLocked("conversation", err)
	}
}

func (c *Conversation) truncateMessagesLocked(n int) {
	if c.log == nil {
		return
	}
	if c.saved.err != nil {
		dirty(&c.saved.messagesFrom, n)
		return
	}
	if err := c.log.TruncateMessages(n); err != nil {
		dirty(&c.saved.messagesFrom, n)
		c.failedLocked("conversation", err)
	}
}

func (c *Conversation) appendAPILocked(m llm.Message) {
	c.api = append(c.api, m)
	if c.log == nil {
		return
	}
	if c.saved.err != nil {
		dirty(&c.saved.apiFrom, len(c.api)-1)
		return
	}
	if err := c.log.AppendAPI(m); err != nil {
		dirty(&c.saved.apiFrom, len(c.api)-1)
		c.failedLocked("model history", err)
	}
}

func (c *Conversation) truncateAPILocked(n int) {
	if c.log == nil {
		return
	}
	if c.saved.err != nil {
		dirty(&c.saved.apiFrom, n)
		return
	}
	if err := c.log.TruncateAPI(n); err != nil {
		dirty(&c.saved.apiFrom, n)
		c.failedLocked("model history", err)
	}
}

// saveMetaLocked dates and writes the header (the repair writes it last in any case).
func (c *Conversation) saveMetaLocked() {
	c.meta.Updated = c.now()
	if c.log == nil || c.saved.err != nil {
		return
	}
	if err := c.log.SaveMeta(c.meta); err != nil {
		c.failedLocked("task header", err)
	}
}

// PauseUntilSaved holds the caller (the task's loop) while the conversation cannot be saved:
// it shows the error, asks to resume through ask, and tries the writes again on each answer.
// It returns nil once everything is on disk, or ask's error (the run was cancelled).
func (c *Conversation) PauseUntilSaved(ctx context.Context, ask func(ctx context.Context) error) error {
	for {
		failure := c.Failure()
		err := c.Repair()
		if failure == nil {
			return nil
		}
		if err == nil {
			c.Say(msg.SayInfo, "The task is saved again and continues.", nil, false)
			return nil
		}
		c.Say(msg.SayError, "Cairn could not save this task ("+failure.Error()+"). It is paused so nothing more is lost: "+
			"the conversation is kept in memory and will be written once the data folder accepts writes again "+
			"(free disk space or fix its permissions), then press Resume.", nil, false)
		if err := ask(ctx); err != nil {
			return err
		}
	}
}
