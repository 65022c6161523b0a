package envdetails

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/watch"
	"github.com/fsnotify/fsnotify"
)

// maxHashed is the largest file whose content the tracker hashes; bigger files are compared by
// size and modification time only. The agent reads text files far smaller than this.
const maxHashed = 16 << 20

// Tracker notices files the agent has read or edited that someone else changed afterwards
// (docs/prompt.md, "Environment details": Recently Modified Files; Cline's FileContextTracker).
//
// The agent's own edits are not reported: the task reports every file a tool read or changed
// through Files after the tool ran, and the tracker records what the agent saw then. A file
// counts as modified when its content differs from that record, so the events of the agent's
// own write, whenever they arrive, compare equal.
//
// Take stats every tracked file, so a change is seen even when its event is still on its way
// (the next turn may start a millisecond after a save). The daemon's one watcher (core/watch),
// watching the folders that hold tracked files (a folder watch survives atomic renames), catches
// what a stat cannot: a rewrite of the same size within one tick of the file system clock; those
// files get their content compared. Without a watcher the stat alone remains.
//
// A Tracker is safe for concurrent use. It watches a folder once it tracks a file in it, so a
// task that never reads a file costs nothing; Close ends its watches, and the owner (the task)
// calls it. The hub is shared by every task and closed by the daemon.
type Tracker struct {
	hub *watch.Hub // nil: files are polled

	// mu guards the fields below.
	mu      sync.Mutex
	files   map[string]*record // absolute path → what the agent last saw
	dirs    map[string]func()  // watched folder → the stop of its watch
	pending map[string]bool    // files with a change event since the last Take
	notify  chan struct{}      // closed and replaced whenever pending grows
	closed  bool
}

type record struct {
	seen   stamp
	polled bool // its folder could not be watched: only the stat in Take sees changes
}

// stamp identifies one version of a file.
type stamp struct {
	exists bool
	size   int64
	mod    time.Time
	hashed bool
	sum    [sha256.Size]byte
}

// NewTracker returns an empty tracker that watches folders through hub (nil: it polls). It
// never fails: a folder that cannot be watched is polled.
func NewTracker(hub *watch.Hub) *Tracker {
	return &Tracker{hub: hub, files: map[string]*record{}, dirs: map[string]func(){}, pending: map[string]bool{},
		notify: make(chan struct{})}
}

// Files records that the agent read and changed these files (absolute paths) just now. It has
// the shape of task.Deps.OnFiles.
func (t *Tracker) Files(read, changed []string) {
	type seen struct {
		path string
		st   stamp
	}
	var all []seen
	for _, p := range slices.Concat(read, changed) {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			continue
		}
		all = append(all, seen{p, stampOf(p, true)})
	}
	// The folders not watched yet are watched first, with no lock of the tracker held (the
	// hub's goroutine takes it to record an event).
	t.mu.Lock()
	if t.closed || len(all) == 0 {
		t.mu.Unlock()
		return
	}
	var dirs []string
	for _, s := range all {
		if _, ok := t.dirs[filepath.Dir(s.path)]; !ok && !slices.Contains(dirs, filepath.Dir(s.path)) {
			dirs = append(dirs, filepath.Dir(s.path))
		}
	}
	t.mu.Unlock()
	stops := map[string]func(){}
	for _, dir := range dirs {
		if t.hub == nil {
			break
		}
		if stop, ok := t.hub.Watch(dir, t.event); ok {
			stops[dir] = stop
		}
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	for dir, stop := range stops {
		if _, ok := t.dirs[dir]; ok || t.closed {
			stop() // watched meanwhile, or closed: one watch is enough
			continue
		}
		t.dirs[dir] = stop
	}
	if t.closed {
		return
	}
	for _, s := range all {
		delete(t.pending, s.path)
		if r, ok := t.files[s.path]; ok {
			r.seen = s.st
			continue
		}
		_, watched := t.dirs[filepath.Dir(s.path)]
		t.files[s.path] = &record{seen: s.st, polled: !watched}
	}
}

// Take returns the files (absolute, sorted) that changed since the agent last saw them or since
// the previous Take reported them, and forgets that they changed: each change is reported once.
func (t *Tracker) Take() []string {
	t.mu.Lock()
	check := map[string]stamp{}
	evented := map[string]bool{}
	for p := range t.pending {
		if r, ok := t.files[p]; ok {
			check[p] = r.seen
			evented[p] = true
		}
	}
	clear(t.pending)
	for p, r := range t.files {
		check[p] = r.seen
	}
	t.mu.Unlock()

	changed := map[string]stamp{}
	for p, was := range check {
		if now, ok := differs(p, was, !evented[p]); ok {
			changed[p] = now
		}
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for p, now := range changed {
		r, ok := t.files[p]
		if !ok || r.seen != check[p] {
			continue // the agent read it again meanwhile
		}
		r.seen = now
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Close ends the tracker's watches. Take still works afterwards and reports what was noticed
// before.
func (t *Tracker) Close() error {
	t.mu.Lock()
	t.closed = true
	stops := t.dirs
	t.dirs = map[string]func(){}
	t.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	return nil
}

// changed returns a channel closed when a change event is next recorded (tests wait on it).
func (t *Tracker) changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.notify
}

// event records a change the hub saw in a watched folder.
func (t *Tracker) event(ev watch.Event) {
	switch {
	case ev.Lost:
		t.mark("", true) // events were lost: compare every file at the next Take
	case ev.Op.Has(fsnotify.Write) || ev.Op.Has(fsnotify.Create):
		t.mark(ev.Path, false)
	}
}

// mark records a change event of a tracked file (every one when all). The notify channel is
// closed for every event recorded, also of a file already pending: a late event of an earlier
// write must not swallow the signal of the next one.
func (t *Tracker) mark(path string, all bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := false
	for p := range t.files {
		if all || p == path {
			t.pending[p] = true
			seen = true
		}
	}
	if seen {
		close(t.notify)
		t.notify = make(chan struct{})
	}
}

// differs reports whether the file at p is no longer the version was, with its current stamp.
// A deleted file does not count as modified. trustTime skips hashing when size and
// modification time are unchanged; after a change event the content is always compared,
// because file systems stamp times at kernel-tick granularity and a same-size rewrite within
// one tick keeps both.
func differs(p string, was stamp, trustTime bool) (stamp, bool) {
	quick := stampOf(p, false)
	switch {
	case !quick.exists:
		return quick, false
	case trustTime && was.exists && quick.size == was.size && quick.mod.Equal(was.mod):
		return was, false
	}
	now := stampOf(p, true)
	if now.hashed && was.hashed {
		return now, now.sum != was.sum
	}
	return now, !was.exists || now.size != was.size || !now.mod.Equal(was.mod)
}

func stampOf(p string, hash bool) stamp {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return stamp{}
	}
	st := stamp{exists: true, size: fi.Size(), mod: fi.ModTime()}
	if !hash || fi.Size() > maxHashed {
		return st
	}
	f, err := os.Open(p)
	if err != nil {
		return st
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	_ = f.Close() // opened read-only: a failed close loses nothing
	if err != nil {
		return st
	}
	h.Sum(st.sum[:0])
	st.hashed = true
	return st
}
