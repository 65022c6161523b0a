// Package watch is the daemon's one file-system watcher (fsnotify): every folder is watched
// once however many watch it, so the daemon's draw on the system's watch limit (which the
// editor needs too) grows with the folders, not with the tasks. The composition root (server,
// Start) makes the one Hub and closes it; the environment details' change tracking of every
// task watches through it (docs/architecture.md, "Packages and levels").
package watch

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Event is one change in a watched folder.
type Event struct {
	// Path is the file (or folder) the change is about, cleaned.
	Path string
	// Op is what happened to it.
	Op fsnotify.Op
	// Lost says events were lost (the system's queue overflowed): Path and Op are empty and
	// every watcher should look again at everything it watches.
	Lost bool
}

// Handler is told the events of a folder it watches. It is called on the hub's goroutine, one
// event at a time and with no lock of the hub held; it must not call Watch or a stop func.
type Handler func(Event)

type sub struct{ fn Handler }

// Hub watches folders for whoever asks, each folder once.
type Hub struct {
	w    *fsnotify.Watcher // nil: the system refused a watcher; Watch then refuses every folder
	done chan struct{}     // closed when the hub's goroutine has returned

	// mu guards subs and closed.
	mu     sync.Mutex
	subs   map[string]map[*sub]struct{} // watched folder → who watches it
	closed bool
}

// New returns a hub. It never fails: where the system refuses a watcher, Watch reports false
// and callers poll.
func New() *Hub {
	h := &Hub{subs: map[string]map[*sub]struct{}{}, done: make(chan struct{})}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		close(h.done)
		return h
	}
	h.w = w
	go h.loop()
	return h
}

// Watch tells fn the events of dir (its files and the folder itself) until stop is called. ok
// is false, and fn is never called, when the folder cannot be watched (no watcher, the
// system's limit reached, no such folder, the hub closed).
func (h *Hub) Watch(dir string, fn Handler) (stop func(), ok bool) {
	dir = filepath.Clean(dir)
	s := &sub{fn: fn}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w == nil || h.closed {
		return nil, false
	}
	if len(h.subs[dir]) == 0 {
		if err := h.w.Add(dir); err != nil {
			return nil, false
		}
		h.subs[dir] = map[*sub]struct{}{}
	}
	h.subs[dir][s] = struct{}{}
	var once sync.Once
	return func() { once.Do(func() { h.unwatch(dir, s) }) }, true
}

// unwatch ends s's watch of dir, and the folder's watch when nobody else watches it.
func (h *Hub) unwatch(dir string, s *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := h.subs[dir]
	delete(subs, s)
	if len(subs) > 0 || h.closed {
		return
	}
	delete(h.subs, dir)
	// The folder may be gone (its watch went with it): nothing is left to remove.
	_ = h.w.Remove(dir)
}

// Folders is how many folders the hub watches.
func (h *Hub) Folders() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every watch and waits for the hub's goroutine: no handler runs after it returns.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		<-h.done
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	var err error
	if h.w != nil {
		err = h.w.Close()
	}
	<-h.done
	return err
}

func (h *Hub) loop() {
	defer close(h.done)
	for {
		select {
		case ev, ok := <-h.w.Events:
			if !ok {
				return
			}
			path := filepath.Clean(ev.Name)
			h.tell(Event{Path: path, Op: ev.Op}, filepath.Dir(path), path)
		case err, ok := <-h.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				h.tell(Event{Lost: true})
			}
		}
	}
}

// tell hands ev to whoever watches one of dirs (every watcher when dirs is empty).
func (h *Hub) tell(ev Event, dirs ...string) {
	h.mu.Lock()
	var fns []Handler
	if len(dirs) == 0 {
		for _, subs := range h.subs {
			for s := range subs {
				fns = append(fns, s.fn)
			}
		}
	}
	for _, d := range dirs {
		for s := range h.subs[d] {
			fns = append(fns, s.fn)
		}
	}
	h.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}
