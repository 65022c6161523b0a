// Package watch is the daemon's one file-system watcher (fsnotify): every folder is watched
// once however many watch it, so the daemon's draw on the system's watch limit (which the
// editor needs too) grows with the folders, not with the users. The composition root (server,
// Start) makes the one Hub, passes it to whoever watches (the @ index of each root, the
// search indexes, the environment details' change tracking of every task) and closes it last
// (docs/architecture.md, "Watching files").
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

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
	stop chan struct{}     // closed by Close when the system's watcher did not close in time
	// closeW closes the system's watcher (w.Close), waited for at most closeWait; tests
	// replace both.
	closeW    func() error
	closeWait time.Duration
	// addMu serialises the changes of what the system watches (w.Add, w.Remove) with the
	// changes of subs that decide them. It is taken before mu and never by the hub's
	// goroutine, and w.Add and w.Remove are called with it alone: on some systems (Windows)
	// they wait for fsnotify's reader, which may be waiting for the hub's goroutine to take
	// an event, which may be waiting for mu.
	addMu sync.Mutex
	// mu guards every field below.
	mu     sync.Mutex
	subs   map[string]map[*sub]struct{} // watched folder → who watches it
	closed bool
	// marks is the hub's own folder, where Flush writes the marks it waits for, made at the
	// first Flush ("" before; Close removes it); marksFailed: it could not be made or watched.
	marks       string
	marksFailed bool
	next        int                      // the number of the next mark
	marked      map[string]chan struct{} // a mark's path → closed when the hub's goroutine saw it
}

// New returns a hub. It never fails: where the system refuses a watcher, Watch reports false
// and callers poll.
func New() *Hub {
	h := &Hub{
		subs: map[string]map[*sub]struct{}{}, marked: map[string]chan struct{}{},
		done: make(chan struct{}), stop: make(chan struct{}),
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		close(h.done)
		return h
	}
	h.w, h.closeW, h.closeWait = w, w.Close, defaultCloseWait
	go h.loop()
	return h
}

// ordered says the system hands the hub every folder's events in the order they happened, one
// queue for all (inotify, one descriptor per fsnotify watcher): a mark seen means every change
// made before it was told. Elsewhere (ReadDirectoryChangesW, kqueue) each folder has its own,
// and Flush cannot tell.
const ordered = runtime.GOOS == "linux"

// markFolder returns the hub's own folder for Flush's marks, made and watched the first time
// ("" when it cannot be).
func (h *Hub) markFolder() string {
	h.addMu.Lock()
	defer h.addMu.Unlock()
	h.mu.Lock()
	marks, tried := h.marks, h.marks != "" || h.marksFailed || !ordered || h.w == nil || h.closed
	h.mu.Unlock()
	if tried {
		return marks
	}
	dir, err := os.MkdirTemp("", "cairn-watch-")
	if err == nil {
		if err = h.w.Add(dir); err != nil {
			_ = os.Remove(dir) // empty: nothing is lost
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil && h.closed {
		// Close has passed the point where it removes the folder; it is empty.
		_ = os.Remove(dir)
		return ""
	}
	if err != nil {
		h.marksFailed = true
		return ""
	}
	h.marks = filepath.Clean(dir)
	return h.marks
}

// ErrUnordered is Flush's answer where it cannot tell that earlier changes were told: no
// watcher, a system whose folders queue their events apart, or the hub closed.
var ErrUnordered = errors.New("watch: the system does not order its events across folders")

// Flush returns once every change made to a watched folder before it was called has been
// told to its handlers (and their calls have returned): it writes a mark into the hub's own
// folder and waits until the hub's goroutine sees it come through the same queue. A user of
// the hub that must see its own changes, or the changes made before a question, ordered with
// the events (the search index: is its file list still true?) calls it first. It answers
// ErrUnordered where it cannot tell, or ctx's error.
func (h *Hub) Flush(ctx context.Context) error {
	marks := h.markFolder()
	h.mu.Lock()
	if marks == "" || h.closed {
		h.mu.Unlock()
		return ErrUnordered
	}
	path := filepath.Join(marks, strconv.Itoa(h.next))
	h.next++
	seen := make(chan struct{})
	h.marked[path] = seen
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.marked, path)
		h.mu.Unlock()
		_ = os.Remove(path) // a mark holds nothing; Close removes the folder anyway
	}()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnordered, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnordered, err)
	}
	select {
	case <-seen:
		return nil
	case <-h.done:
		return ErrUnordered
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Set is one user's watch of many folders, all told to one handler: Add watches a folder
// (again, where the system dropped its watch when the folder went away and came back), Close
// ends them all. It is safe for concurrent use.
type Set struct {
	h  *Hub
	fn Handler

	// mu guards stops and closed.
	mu     sync.Mutex
	stops  map[string]func() // watched folder → its stop
	closed bool
}

// NewSet returns an empty set whose folders' events go to fn (see Handler).
func (h *Hub) NewSet(fn Handler) *Set {
	return &Set{h: h, fn: fn, stops: map[string]func(){}}
}

// Add watches dir; false when it cannot be watched (see Watch) or the set is closed.
func (s *Set) Add(dir string) bool {
	dir = filepath.Clean(dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if _, ok := s.stops[dir]; ok {
		return s.h.rewatch(dir)
	}
	stop, ok := s.h.Watch(dir, s.fn)
	if ok {
		s.stops[dir] = stop
	}
	return ok
}

// Close ends every watch of the set: its handler is not called for them once Close returns,
// unless the hub's goroutine was already telling it an event.
func (s *Set) Close() {
	s.mu.Lock()
	stops := s.stops
	s.stops, s.closed = nil, true
	s.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// rewatch watches dir, which someone watches already, again: a folder removed and made again
// lost its watch with it (adding a watch that stands changes nothing).
func (h *Hub) rewatch(dir string) bool {
	h.addMu.Lock()
	defer h.addMu.Unlock()
	h.mu.Lock()
	open := h.w != nil && !h.closed
	h.mu.Unlock()
	return open && h.w.Add(dir) == nil
}

// Watch tells fn the events of dir (its files and the folder itself) until stop is called. ok
// is false, and fn is never called, when the folder cannot be watched (no watcher, the
// system's limit reached, no such folder, the hub closed).
func (h *Hub) Watch(dir string, fn Handler) (stop func(), ok bool) {
	dir = filepath.Clean(dir)
	s := &sub{fn: fn}
	h.addMu.Lock()
	defer h.addMu.Unlock()
	h.mu.Lock()
	open, first := h.w != nil && !h.closed, len(h.subs[dir]) == 0
	h.mu.Unlock()
	if !open || first && h.w.Add(dir) != nil {
		return nil, false
	}
	h.mu.Lock()
	if first {
		h.subs[dir] = map[*sub]struct{}{}
	}
	h.subs[dir][s] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { h.unwatch(dir, s) }) }, true
}

// unwatch ends s's watch of dir, and the folder's watch when nobody else watches it.
func (h *Hub) unwatch(dir string, s *sub) {
	h.addMu.Lock()
	defer h.addMu.Unlock()
	h.mu.Lock()
	subs := h.subs[dir]
	delete(subs, s)
	last := len(subs) == 0 && !h.closed
	if last {
		delete(h.subs, dir)
	}
	h.mu.Unlock()
	if last {
		// The folder may be gone (its watch went with it): nothing is left to remove.
		_ = h.w.Remove(dir)
	}
}

// defaultCloseWait bounds how long Close waits for the system's watcher to close.
const defaultCloseWait = 5 * time.Second

// Folders is how many folders the hub watches.
func (h *Hub) Folders() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Watches is how many watches of folders the hub's users hold (a folder watched by two users
// counts twice; Folders counts it once).
func (h *Hub) Watches() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, subs := range h.subs {
		n += len(subs)
	}
	return n
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
		// fsnotify's Close waits for its reader, which on Windows can miss the request: when
		// a change read just before a watch was removed is handled after the watch's handle
		// was closed, the reader's error path takes Close's wake-up and does not put it back.
		// Past closeWait the hub's goroutine stops on its own and the reader is left behind.
		closed := make(chan error, 1)
		go func() { closed <- h.closeW() }()
		select {
		case err = <-closed:
		case <-time.After(h.closeWait):
			slog.Warn("watch: the system's file watcher did not close in time; its reader is left behind", "waited", h.closeWait)
			close(h.stop)
		}
	}
	<-h.done
	h.mu.Lock()
	marks := h.marks
	h.mu.Unlock()
	if marks != "" {
		err = errors.Join(err, os.RemoveAll(marks))
	}
	return err
}

func (h *Hub) loop() {
	defer close(h.done)
	for {
		select {
		case <-h.stop:
			return
		case ev, ok := <-h.w.Events:
			if !ok {
				return
			}
			path := filepath.Clean(ev.Name)
			if h.sawMark(path) {
				continue
			}
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

// sawMark reports whether path is in the hub's own folder, and wakes the Flush waiting for
// the mark at path (a mark's later events wake nobody).
func (h *Hub) sawMark(path string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.marks == "" || filepath.Dir(path) != h.marks {
		return false
	}
	if ch, ok := h.marked[path]; ok {
		close(ch)
		delete(h.marked, path)
	}
	return true
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
