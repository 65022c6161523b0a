package task

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/guards"
)

// Options are what a new or resumed task is for.
type Options struct {
	// ID is the new task's id, chosen beforehand with NewID ("": a fresh one).
	ID        string
	Workspace []string
	HostID    string
	Mode      string
	// Overrides are the task's own settings (nil: the shared settings govern it).
	Overrides *config.Overrides
	// Parent is the task that starts this one as a subtask ("": none; store.Meta.Parent).
	Parent string
}

// DepsFunc builds a task's dependencies (provider, tools, host) for its workspace and host.
type DepsFunc func(ctx context.Context, opts Options) (Deps, error)

// Manager holds the loaded tasks. Each task owns its goroutines; CloseAll ends them all.
type Manager struct {
	store *store.Store
	deps  DepsFunc

	// mu guards tasks, keys and opening.
	mu    sync.Mutex
	tasks map[string]*Task
	// keys are the API keys of tasks with settings of their own, by task id: a key is never
	// saved, so it lives here, for a task closed and reopened while the daemon runs.
	keys map[string]string
	// opening serialises Open and Clear of one task, so a reopen never meets the store lock
	// (store.Load) still held by its own earlier opening.
	opening map[string]*openGate
	// watchers are told each change of tasks (Watch).
	watchers map[chan struct{}]struct{}
}

// openGate is one task's Open/Clear turn; users counts who holds or waits for it.
type openGate struct {
	mu    sync.Mutex
	users int
}

// NewManager returns a manager of the tasks in st (nil: tasks are not saved).
func NewManager(st *store.Store, deps DepsFunc) *Manager {
	return &Manager{store: st, deps: deps, tasks: map[string]*Task{}, keys: map[string]string{}, opening: map[string]*openGate{}}
}

// gate waits for task id's Open/Clear turn; the returned func ends it.
func (m *Manager) gate(id string) func() {
	m.mu.Lock()
	g := m.opening[id]
	if g == nil {
		g = &openGate{}
		m.opening[id] = g
	}
	g.users++
	m.mu.Unlock()
	g.mu.Lock()
	return func() {
		g.mu.Unlock()
		m.mu.Lock()
		if g.users--; g.users == 0 {
			delete(m.opening, id)
		}
		m.mu.Unlock()
	}
}

// Store returns the task store.
func (m *Manager) Store() *store.Store { return m.store }

// New starts a task.
func (m *Manager) New(ctx context.Context, opts Options, text string, images, files []string) (*Task, error) {
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return nil, fmt.Errorf("%w: empty task", ErrBadRequest)
	}
	deps, err := m.deps(ctx, opts)
	if err != nil {
		return nil, err
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	now := deps.Now() // the task's own clock, as everything it dates
	id := opts.ID
	if id == "" {
		id = newID(now)
	}
	meta := store.Meta{ID: id, Title: title(text), Workspace: opts.Workspace, Model: deps.Model,
		Included: deps.ModelInfo.Included, Mode: opts.Mode, Created: now, Updated: now, Parent: opts.Parent}
	if opts.Overrides != nil {
		own := *opts.Overrides
		meta.Overrides = &own // its key is kept in memory only (config.Overrides)
	}
	var log *store.Log
	if m.store != nil {
		if log, err = m.store.Create(meta); err != nil {
			return nil, err
		}
	}
	var j journal
	if log != nil {
		j = log
	}
	t := newTask(meta, deps, j)
	m.mu.Lock()
	m.tasks[t.id] = t
	if meta.Overrides != nil && meta.Overrides.APIKey != "" {
		m.keys[t.id] = meta.Overrides.APIKey
	}
	m.mu.Unlock()
	if err := t.Start(text, images, files); err != nil {
		m.Clear(ctx, t.id)
		return nil, err
	}
	m.Changed()
	return t, nil
}

// Get returns a loaded task.
func (m *Manager) Get(id string) (*Task, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return t, ok
}

// Open returns the task, loading it from the store (with a resume ask) when it is not loaded.
// A task another daemon holds is refused with the store's *store.LockedError.
func (m *Manager) Open(ctx context.Context, id string, hostID string) (*Task, error) {
	return m.OpenWith(ctx, id, hostID, nil)
}

// OpenWith is Open with settings of the task's own on top of those it was started with (nil:
// none). A task already loaded takes the model and policy of extra (UpdateOwnSettings); an
// endpoint, key, tool format or limit applies when the task is next loaded, so for a loaded
// task they are refused rather than ignored.
func (m *Manager) OpenWith(ctx context.Context, id, hostID string, extra *config.Overrides) (*Task, error) {
	if t, ok := m.Get(id); ok {
		return t, applyOverrides(t, extra)
	}
	if m.store == nil {
		return nil, ErrNotFound
	}
	defer m.gate(id)()
	if t, ok := m.Get(id); ok {
		return t, applyOverrides(t, extra)
	}
	loaded, err := m.store.Load(id)
	if errors.Is(err, store.ErrLocked) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	own := m.reopened(id, loaded.Meta.Overrides, extra)
	loaded.Meta.Overrides = own
	deps, err := m.deps(ctx, Options{Workspace: loaded.Meta.Workspace, HostID: hostID, Mode: loaded.Meta.Mode, Overrides: own})
	if err != nil {
		return nil, errors.Join(err, loaded.Log.Close())
	}
	t := newTask(loaded.Meta, deps, loaded.Log)
	t.guards = guards.New(deps.Settings.TaskLimits, guards.CountRequests(loaded.Messages))
	t.conv.Reopen(loaded.Messages, loaded.API, func(ms []msg.Message) {
		boundOutputRows(ms, deps.Settings.OutputLineLimit, deps.Settings.OutputByteLimit)
	})
	m.mu.Lock()
	if existing, ok := m.tasks[id]; ok {
		m.mu.Unlock()
		t.Close(ctx)
		return existing, nil
	}
	m.tasks[id] = t
	m.mu.Unlock()
	if len(t.conv.History()) > 0 || len(t.conv.Messages()) > 0 {
		t.state.AskResume()
	}
	m.Changed()
	return t, nil
}

// reopened returns the settings of its own a task is reopened with: those it was saved with,
// with extra's fields on top and its key from memory when extra brings none (nil: none).
func (m *Manager) reopened(id string, saved, extra *config.Overrides) *config.Overrides {
	if saved == nil && extra == nil {
		return nil
	}
	var own config.Overrides
	if saved != nil {
		own = *saved
	}
	if extra != nil {
		own = own.With(*extra)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if own.APIKey == "" {
		own.APIKey = m.keys[id]
	} else {
		m.keys[id] = own.APIKey
	}
	return &own
}

// Clear closes a task in the daemon (waiting, bounded by ctx, for its goroutines); it stays
// in history.
func (m *Manager) Clear(ctx context.Context, id string) {
	defer m.gate(id)()
	m.mu.Lock()
	t, ok := m.tasks[id]
	delete(m.tasks, id)
	m.mu.Unlock()
	if ok {
		t.Close(ctx)
		m.Changed()
	}
}

// Delete removes tasks from the daemon and the store.
func (m *Manager) Delete(ctx context.Context, ids ...string) error {
	for _, id := range ids {
		m.Clear(ctx, id)
	}
	if m.store == nil {
		return nil
	}
	return m.store.Delete(ids...)
}

// CloseAll stops every task (daemon shutdown), in parallel, each bounded by ctx.
func (m *Manager) CloseAll(ctx context.Context) {
	m.mu.Lock()
	ts := make([]*Task, 0, len(m.tasks))
	for _, t := range m.tasks {
		ts = append(ts, t)
	}
	m.tasks = map[string]*Task{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Close(ctx)
		}()
	}
	wg.Wait()
}

// Tasks returns the loaded tasks.
func (m *Manager) Tasks() []*Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Task, 0, len(m.tasks))
	for _, t := range m.tasks {
		out = append(out, t)
	}
	return out
}

// Watch returns a channel that receives a value after the set of loaded tasks changed (a task
// started, was opened, closed or deleted), and the func that ends the watch. A change while
// the last one is still unread is folded into it: the channel says "look again", not what
// changed. The board's stream (server/rpc WatchTasks) follows it.
func (m *Manager) Watch() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	if m.watchers == nil {
		m.watchers = map[chan struct{}]struct{}{}
	}
	m.watchers[ch] = struct{}{}
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		delete(m.watchers, ch)
		m.mu.Unlock()
	}
}

// Changed tells the watchers that tasks changed (called here when the set of loaded tasks
// changes, and by the server when a task's worktree is merged or discarded); it never blocks.
func (m *Manager) Changed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ch := range m.watchers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
