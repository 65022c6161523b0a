package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/watch"
)

// View is one user's rules over a file list: which entries it keeps and which folders it
// descends into (docs/architecture.md, "Watching files").
type View uint8

// The views a file list keeps.
const (
	// ListView is ListOptions (= IndexOptions): the @ index and list_files. A list keeps it
	// from its first scan.
	ListView View = iota
	// SearchView is SearchOptions: the search index's file set. A list works it out the
	// first time it is asked for (Files), and keeps it from then on.
	SearchView
	numViews
)

// viewOptions are the rules of each view.
var viewOptions = [numViews]FilterOptions{ListView: ListOptions, SearchView: SearchOptions}

// viewSet holds one bit per View.
type viewSet uint8

func (s viewSet) has(v View) bool { return s&(1<<v) != 0 }

// Lists are the daemon's file lists, one per workspace root, each kept current through the
// daemon's one watcher. The composition root (server, Start) makes them; the @ index, the
// search indexes and list_files share them; Close closes every list and waits for their
// goroutines (before the hub is closed). It is safe for concurrent use.
type Lists struct {
	hub *watch.Hub // nil: the lists are never kept current (and never answer Sync)
	// mu guards m and closed.
	mu     sync.Mutex
	m      map[string]*FileList // by root
	closed bool
}

// NewLists returns an empty set of file lists watching through hub (nil: not watched).
func NewLists(hub *watch.Hub) *Lists {
	return &Lists{hub: hub, m: map[string]*FileList{}}
}

// ErrClosed is Open's answer once the lists are closed.
var ErrClosed = errors.New("workspace: the file lists are closed")

// Open returns the file list of root (absolute, resolved) with one more hold on it, scanning
// the root the first time; Release drops the hold, and the last one closes the list.
func (ls *Lists) Open(ctx context.Context, root string) (*FileList, error) {
	root = filepath.Clean(root)
	ls.mu.Lock()
	if ls.closed {
		ls.mu.Unlock()
		return nil, ErrClosed
	}
	fl := ls.m[root]
	if fl == nil {
		fl = newFileList(ls, root)
		ls.m[root] = fl
	}
	fl.refs++
	ls.mu.Unlock()
	fl.once.Do(func() {
		fl.err = fl.start(ctx)
		close(fl.started)
	})
	if fl.err != nil {
		fl.Release()
		return nil, fl.err
	}
	return fl, nil
}

// held returns the list of the innermost root holding dir that somebody holds open, with one
// more hold on it, or nil.
func (ls *Lists) held(dir string) *FileList {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var best *FileList
	for root, fl := range ls.m {
		if within(root, dir) && (best == nil || len(root) > len(best.root)) {
			best = fl
		}
	}
	if best == nil {
		return nil
	}
	best.refs++
	return best
}

// DirReader reads a folder's entries sorted by name, as os.ReadDir does.
type DirReader func(dir string) ([]fs.DirEntry, error)

// Reader returns how a listing of dir reads folders: from the file list of the root holding
// dir when one is held open and current (FileList.Sync), else from the disk. done drops the
// hold; the reader is not used after it.
func (ls *Lists) Reader(ctx context.Context, dir string) (read DirReader, done func()) {
	fl := ls.held(filepath.Clean(dir))
	if fl == nil {
		return os.ReadDir, func() {}
	}
	<-fl.started // Open, which put it there, is reading it
	if fl.err != nil {
		fl.Release()
		return os.ReadDir, func() {}
	}
	if _, err := fl.Sync(ctx); err != nil {
		fl.Release()
		return os.ReadDir, func() {}
	}
	return fl.readDir, fl.Release
}

// Len is how many file lists are open.
func (ls *Lists) Len() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.m)
}

// Close closes every list and waits for their goroutines. A list opened after it answers
// ErrClosed.
func (ls *Lists) Close() {
	ls.mu.Lock()
	ls.closed = true
	all := ls.m
	ls.m = map[string]*FileList{}
	ls.mu.Unlock()
	for _, fl := range all {
		fl.close()
	}
}

// Change is what one change on disk did to a file list, told to its subscribers.
type Change struct {
	// Reset: the list was read again (an ignore file changed, events were lost, or this is
	// the subscriber's first call); everything else is empty. A subscriber reads it whole.
	Reset bool
	// Removed is an entry that went, with everything below it when it was a folder.
	Removed string
	// Added are the entries that came, a new folder's content included.
	Added []Added
}

// Added is one entry a change added. A view the list does not keep yet keeps nothing.
type Added struct {
	Path  string
	IsDir bool
	views viewSet
}

// In reports whether view keeps the entry.
func (a Added) In(v View) bool { return a.views.has(v) }

// FileList is one root's files and folders as the daemon's views see them: every folder a
// view descends into is read once, with all its entries, and watched once; each entry records
// which views keep it. Changes told by the hub are applied in order on the list's goroutine,
// which then tells the subscribers. It is safe for concurrent use.
type FileList struct {
	ls      *Lists
	root    string
	ws      *Workspace    // root alone: the filters of its views
	refs    int           // holders (guarded by ls.mu)
	once    sync.Once     // the first scan
	started chan struct{} // closed once the first scan ended
	err     error         // the first scan's (set before started closes)
	set     *watch.Set    // the list's folders on the hub; nil without a hub
	// done closes when the list closes; stopped counts its goroutine; stop ends the context
	// of its scans.
	done    chan struct{}
	stopped sync.WaitGroup
	stop    context.CancelFunc

	// qmu guards queue, told, applied and caught: the events the hub told (told counts
	// them), which the list's goroutine applies (applied counts those done; caught is
	// closed and replaced each time it rises). wake holds one signal that queue is not empty.
	qmu     sync.Mutex
	queue   []watch.Event
	told    uint64
	applied uint64
	caught  chan struct{}
	wake    chan struct{}

	// applyMu is held while a change is applied and told, and while a subscriber is added:
	// a subscriber sees every change after its Reset exactly once.
	applyMu sync.Mutex
	// mu guards every field below.
	mu        sync.RWMutex
	dirs      map[string]*folder
	views     viewSet    // the views the list keeps (ListView, and the others once asked for)
	gen       uint64     // changes applied (every event counts, a file's write too)
	user      *userRules // the user ignore rules the last scan applied
	unwatched int        // folders the hub could not watch
	subs      map[*func(Change)]struct{}
}

// folder is one folder a view descends into.
type folder struct {
	filters [numViews]*Filter // nil for a view that does not descend here (or not kept)
	// kids are every entry, in the order the system read them until a reader wants them
	// sorted by name (sorted): the scan does not sort what nobody reads in order.
	kids    []entry
	sorted  bool
	watched bool
}

// find returns where name is in kids, or where it goes and false.
func (f *folder) find(name string) (int, bool) {
	if f.sorted {
		return slices.BinarySearchFunc(f.kids, name, func(e entry, n string) int { return strings.Compare(e.name, n) })
	}
	for i := range f.kids {
		if f.kids[i].name == name {
			return i, true
		}
	}
	return len(f.kids), false
}

// sortLocked puts kids in name order; the list's mu is held for writing.
func (f *folder) sortLocked() {
	if !f.sorted {
		slices.SortFunc(f.kids, func(a, b entry) int { return strings.Compare(a.name, b.name) })
		f.sorted = true
	}
}

// entry is one entry of a folder. It is an fs.DirEntry (Info reads the disk, as os.ReadDir's
// do on most systems).
type entry struct {
	dir   string
	name  string
	typ   fs.FileMode
	views viewSet // the views that keep it
}

func (e entry) Name() string               { return e.name }
func (e entry) IsDir() bool                { return e.typ.IsDir() }
func (e entry) Type() fs.FileMode          { return e.typ }
func (e entry) Info() (fs.FileInfo, error) { return os.Lstat(filepath.Join(e.dir, e.name)) }

func newFileList(ls *Lists, root string) *FileList {
	return &FileList{ls: ls, root: root, done: make(chan struct{}), started: make(chan struct{}), caught: make(chan struct{}),
		wake: make(chan struct{}, 1), dirs: map[string]*folder{}, views: 1 << ListView, subs: map[*func(Change)]struct{}{}}
}

// start scans the root and starts the list's goroutine.
func (fl *FileList) start(ctx context.Context) error {
	ws, err := New(fl.root)
	if err != nil {
		return err
	}
	fl.ws = ws
	if fl.ls.hub != nil {
		fl.set = fl.ls.hub.NewSet(fl.queueEvent)
	}
	if err := fl.rescan(ctx); err != nil {
		return err
	}
	// The list outlives the call that opened it: its scans keep ctx's values, not its end.
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	fl.stop = stop
	fl.stopped.Add(1)
	go fl.loop(wctx)
	return nil
}

// Release drops one hold; the last closes the list and waits for its goroutine.
func (fl *FileList) Release() {
	fl.ls.mu.Lock()
	fl.refs--
	last := fl.refs == 0 && fl.ls.m[fl.root] == fl
	if last {
		delete(fl.ls.m, fl.root)
	}
	fl.ls.mu.Unlock()
	if last {
		fl.close()
	}
}

// close ends the list's watch and goroutine and waits for it. A first scan under way (Open)
// ends first: the goroutine it starts is then told to end at once.
func (fl *FileList) close() {
	<-fl.started
	select {
	case <-fl.done:
		return
	default:
	}
	close(fl.done)
	if fl.stop != nil {
		fl.stop()
	}
	if fl.set != nil {
		fl.set.Close()
	}
	fl.stopped.Wait()
}

// queueEvent queues an event the hub told (on the hub's goroutine: it only queues).
func (fl *FileList) queueEvent(ev watch.Event) {
	fl.qmu.Lock()
	if len(fl.queue) >= maxQueued {
		fl.queue = append(fl.queue[:0], watch.Event{Lost: true})
	} else {
		fl.queue = append(fl.queue, ev)
	}
	fl.told++
	fl.qmu.Unlock()
	select {
	case fl.wake <- struct{}{}:
	default:
	}
}

// maxQueued is how many events a list holds for its goroutine; past it they are dropped for
// one rescan, as after the system lost events.
const maxQueued = 1 << 16

// loop applies the events the hub told, in order, until the list closes.
func (fl *FileList) loop(ctx context.Context) {
	defer fl.stopped.Done()
	for {
		select {
		case <-fl.done:
			return
		case <-fl.wake:
		}
		fl.qmu.Lock()
		evs := fl.queue
		fl.queue = nil
		fl.qmu.Unlock()
		for _, ev := range evs {
			if ctx.Err() != nil {
				return
			}
			fl.applyMu.Lock()
			fl.apply(ctx, ev)
			fl.applyMu.Unlock()
			fl.qmu.Lock()
			fl.applied++
			close(fl.caught)
			fl.caught = make(chan struct{})
			fl.qmu.Unlock()
		}
	}
}

// ErrUnwatched is Sync's answer where the list cannot tell it is current: no hub, a system
// that does not order its events (watch.ErrUnordered), or the list closed.
var ErrUnwatched = errors.New("workspace: the file list cannot tell it is current")

// Sync returns once every change made before the call is in the list, with the count of
// changes applied so far: equal counts from two calls mean nothing changed between them. It
// answers ErrUnwatched (wrapped) where it cannot tell, or ctx's error.
func (fl *FileList) Sync(ctx context.Context) (uint64, error) {
	if fl.set == nil {
		return 0, ErrUnwatched
	}
	if err := fl.ls.hub.Flush(ctx); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrUnwatched, err)
	}
	fl.mu.RLock()
	user := fl.user
	fl.mu.RUnlock()
	if user != fl.ws.roots[0].user.current() {
		// A file the user ignore rules include changed (not one the list watches): read again.
		fl.queueEvent(watch.Event{Lost: true})
	}
	fl.qmu.Lock()
	want := fl.told
	for fl.applied < want {
		ch := fl.caught
		fl.qmu.Unlock()
		select {
		case <-ch:
		case <-fl.done:
			return 0, ErrUnwatched
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		fl.qmu.Lock()
	}
	fl.qmu.Unlock()
	fl.mu.RLock()
	defer fl.mu.RUnlock()
	return fl.gen, nil
}

// Complete reports whether the hub watches every folder of the list (out of watches: not).
func (fl *FileList) Complete() bool {
	fl.mu.RLock()
	defer fl.mu.RUnlock()
	return fl.set != nil && fl.unwatched == 0
}

// readDir is os.ReadDir from the list, for a folder it reads and watches; others are read
// from the disk.
func (fl *FileList) readDir(dir string) ([]fs.DirEntry, error) {
	dir = filepath.Clean(dir)
	fl.mu.RLock()
	f := fl.dirs[dir]
	if f == nil || !f.watched {
		fl.mu.RUnlock()
		return os.ReadDir(dir)
	}
	if !f.sorted {
		// The first reader of the folder sorts it, once.
		fl.mu.RUnlock()
		fl.mu.Lock()
		if f = fl.dirs[dir]; f != nil {
			f.sortLocked()
		}
		fl.mu.Unlock()
		return fl.readDir(dir)
	}
	kids := slices.Clone(f.kids) // the folder's slice changes with the next event
	fl.mu.RUnlock()
	out := make([]fs.DirEntry, len(kids))
	for i := range kids {
		out[i] = &kids[i]
	}
	return out, nil
}

// Folders calls size with how many entries view keeps in all, then fn once for every folder
// view descends into, with the entries it keeps there (kept is only valid during the call),
// in no order and from several goroutines at once; the list does not change meanwhile. It
// holds the list's read lock: fn must not call back into the list. A subscriber may call it
// for ListView; the first call for another view works that view out (see keep), reading
// folders under ctx, and must not come from a subscriber.
func (fl *FileList) Folders(ctx context.Context, view View, size func(kept int), fn func(dir string, kept []fs.DirEntry)) {
	fl.keep(ctx, view)
	fl.mu.RLock()
	defer fl.mu.RUnlock()
	dirs := make([]string, 0, len(fl.dirs))
	n := 0
	for dir, f := range fl.dirs {
		if f.filters[view] != nil {
			dirs = append(dirs, dir)
			for i := range f.kids {
				if f.kids[i].views.has(view) {
					n++
				}
			}
		}
	}
	size(n)
	workers := runtime.GOMAXPROCS(0)
	chunk := (len(dirs) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		part := dirs[min(w*chunk, len(dirs)):min((w+1)*chunk, len(dirs))]
		// The workers read under this call's read lock, held until they are done.
		wg.Go(func() {
			var kept []fs.DirEntry
			for _, dir := range part {
				f := fl.dirs[dir]
				kept = kept[:0]
				for i := range f.kids {
					if f.kids[i].views.has(view) {
						kept = append(kept, &f.kids[i]) // a pointer: no copy, no allocation
					}
				}
				fn(dir, kept)
			}
		})
	}
	wg.Wait()
}

// Files returns the regular files view keeps, in path order. The first call for a view the
// list does not keep yet works it out (see keep), reading folders under ctx; it must not come
// from a subscriber.
func (fl *FileList) Files(ctx context.Context, view View) []string {
	fl.keep(ctx, view)
	fl.mu.RLock()
	var out []string
	for dir, f := range fl.dirs {
		if f.filters[view] == nil {
			continue
		}
		for _, k := range f.kids {
			if k.views.has(view) && k.typ.IsRegular() {
				out = append(out, filepath.Join(dir, k.name))
			}
		}
	}
	fl.mu.RUnlock()
	slices.Sort(out)
	return out
}

// Subscribe tells fn every change of the list, on the list's goroutine, starting with a
// Reset before it returns; fn must not call Subscribe or Release. cancel ends it.
func (fl *FileList) Subscribe(fn func(Change)) (cancel func()) {
	fl.applyMu.Lock()
	defer fl.applyMu.Unlock()
	key := &fn
	fl.mu.Lock()
	fl.subs[key] = struct{}{}
	fl.mu.Unlock()
	fn(Change{Reset: true})
	return func() {
		fl.mu.Lock()
		delete(fl.subs, key)
		fl.mu.Unlock()
	}
}

// tell hands c to every subscriber; applyMu is held.
func (fl *FileList) tell(c Change) {
	fl.mu.RLock()
	fns := make([]func(Change), 0, len(fl.subs))
	for fn := range fl.subs {
		fns = append(fns, *fn)
	}
	fl.mu.RUnlock()
	for _, fn := range fns {
		fn(c)
	}
}

// ignoreFileNames change what a view keeps; an edit to one means a rescan.
var ignoreFileNames = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{".gitignore": true, ".ignore": true, ".clineignore": true, ".cairnignore": true}
}}

// apply applies one event told by the hub; applyMu is held.
func (fl *FileList) apply(ctx context.Context, ev watch.Event) {
	fl.mu.Lock()
	fl.gen++
	fl.mu.Unlock()
	name := filepath.Base(ev.Path)
	if ev.Lost || ignoreFileNames.Get()[name] && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) != 0 {
		// The system lost events, or what the views keep may have changed anywhere.
		logScanErr(ctx, fl.rescan(ctx))
		fl.tell(Change{Reset: true})
		return
	}
	switch {
	case ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0:
		// A rename reports the old name here and the new one as a Create in its folder.
		if fl.remove(ev.Path) {
			fl.tell(Change{Removed: ev.Path})
		}
	case ev.Op&fsnotify.Create != 0:
		if added := fl.create(ctx, ev.Path); len(added) > 0 {
			fl.tell(Change{Added: added})
		}
	}
}

// remove drops path from its folder, and its folders when it was one; false when the list
// did not hold it.
func (fl *FileList) remove(path string) bool {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	parent := fl.dirs[filepath.Dir(path)]
	if parent == nil {
		return false
	}
	i, ok := parent.find(filepath.Base(path))
	if !ok {
		return false
	}
	parent.kids = slices.Delete(parent.kids, i, i+1)
	if _, ok := fl.dirs[path]; ok {
		fl.dropLocked(path)
	}
	return true
}

// dropLocked forgets the folder at path and every folder below it; mu is held.
func (fl *FileList) dropLocked(path string) {
	prefix := path + string(filepath.Separator)
	for d, f := range fl.dirs {
		if d == path || strings.HasPrefix(d, prefix) {
			if !f.watched {
				fl.unwatched--
			}
			delete(fl.dirs, d)
		}
	}
}

// create adds path to its folder (and reads it when a view descends into it), returning what
// was added.
func (fl *FileList) create(ctx context.Context, path string) []Added {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // gone again: its Remove follows
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	fl.mu.Lock()
	parent := fl.dirs[dir]
	if parent == nil {
		fl.mu.Unlock()
		return nil
	}
	e := entry{dir: dir, name: name, typ: st.Mode().Type()}
	for v, f := range parent.filters {
		if f != nil && !f.Skip(name, st.IsDir()) {
			e.views |= 1 << v
		}
	}
	filters := childFilters(parent.filters, name, e.views)
	i, ok := parent.find(name)
	if ok {
		parent.kids[i] = e
	} else {
		parent.kids = slices.Insert(parent.kids, i, e)
	}
	if _, ok := fl.dirs[path]; ok {
		fl.dropLocked(path) // a folder made again, or a file where a folder was
	}
	fl.mu.Unlock()
	added := []Added{{Path: path, IsDir: st.IsDir(), views: e.views}}
	if !st.IsDir() || e.views == 0 {
		return added
	}
	// Files may have landed before the watch did: read what is there now. A scan that fails
	// (the list closed) leaves the folder out.
	found := fl.scanInto(ctx, path, filters)
	for d, f := range found {
		for _, k := range f.kids {
			added = append(added, Added{Path: filepath.Join(d, k.name), IsDir: k.IsDir(), views: k.views})
		}
	}
	return added
}

// scanInto scans dir (see scan) and adds what it read to the list, returning it; a scan that
// fails (the list closed) adds nothing.
func (fl *FileList) scanInto(ctx context.Context, dir string, filters filtersOf) map[string]*folder {
	found, err := fl.scan(ctx, dir, filters)
	if err != nil {
		logScanErr(ctx, err)
		return nil
	}
	fl.mu.Lock()
	for d, f := range found {
		fl.dirs[d] = f
		if !f.watched {
			fl.unwatched++
		}
	}
	fl.mu.Unlock()
	return found
}

// rescan reads the whole root again and replaces the list.
func (fl *FileList) rescan(ctx context.Context) error {
	user := fl.ws.roots[0].user.current()
	fl.mu.RLock()
	views := fl.views
	fl.mu.RUnlock()
	var filters [numViews]*Filter
	for v, o := range viewOptions {
		if views.has(View(v)) {
			filters[v] = fl.ws.NewFilter(fl.root, o)
		}
	}
	found, err := fl.scan(ctx, fl.root, func(func(string) bool) [numViews]*Filter { return filters })
	if err != nil {
		return err
	}
	unwatched := 0
	for _, f := range found {
		if !f.watched {
			unwatched++
		}
	}
	fl.mu.Lock()
	fl.dirs, fl.user, fl.unwatched = found, user, unwatched
	fl.mu.Unlock()
	return nil
}

// scan reads dir and every folder below it that a view descends into, in parallel, watching
// each before reading it (so nothing made after the read goes untold). Every folder read
// loses its stale atomic-write temp files first (see sweepTemps). A folder that cannot be
// read is left out, as a walk skips it.
func (fl *FileList) scan(ctx context.Context, dir string, filters filtersOf) (map[string]*folder, error) {
	var (
		mu  sync.Mutex // guards out
		out = map[string]*folder{}
		wg  sync.WaitGroup
		sem = make(chan struct{}, runtime.GOMAXPROCS(0))
	)
	now := time.Now()
	var visit func(dir string, filters filtersOf)
	visit = func(dir string, filters filtersOf) {
		defer wg.Done()
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		f, subs := fl.readFolder(dir, filters, now)
		<-sem
		if f == nil {
			return
		}
		mu.Lock()
		out[dir] = f
		mu.Unlock()
		for _, s := range subs {
			wg.Add(1)
			go visit(filepath.Join(dir, s.name), s.filters)
		}
	}
	wg.Add(1)
	visit(dir, filters)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// filtersOf makes a folder's filters once its entries are read: has says which names it
// holds, so an ignore file it does not hold is not looked for.
type filtersOf func(has func(name string) bool) [numViews]*Filter

// childFilters returns how subfolder name of a folder with filters gets its own, for the
// views that keep it.
func childFilters(filters [numViews]*Filter, name string, views viewSet) filtersOf {
	return func(has func(string) bool) [numViews]*Filter {
		var out [numViews]*Filter
		for v, f := range filters {
			if f != nil && views.has(View(v)) {
				out[v] = f.childOf(name, has)
			}
		}
		return out
	}
}

// sub is a subfolder a scan descends into, with how it gets its views' filters.
type sub struct {
	name    string
	filters filtersOf
}

// readFolder watches and reads one folder; nil when it cannot be read.
func (fl *FileList) readFolder(dir string, mk filtersOf, now time.Time) (*folder, []sub) {
	watched := fl.set != nil && fl.set.Add(dir)
	d, err := os.Open(dir)
	if err != nil {
		return nil, nil // vanished or unreadable: skipped, as a walk does
	}
	des, _ := d.ReadDir(-1)
	closeReadOnly(d)
	des = sweepTemps(dir, des, now)
	filters := mk(holds(len(des), func(i int) string { return des[i].Name() }))
	f := &folder{filters: filters, kids: make([]entry, len(des)), watched: watched}
	var subs []sub
	for i, de := range des {
		name, isDir := de.Name(), de.IsDir()
		e := entry{dir: dir, name: name, typ: de.Type()}
		for v, vf := range filters {
			if vf != nil && !vf.Skip(name, isDir) {
				e.views |= 1 << v
			}
		}
		if isDir && e.views != 0 {
			subs = append(subs, sub{name: name, filters: childFilters(filters, name, e.views)})
		}
		f.kids[i] = e
	}
	return f, subs
}

// holds says which rule files a folder of n entries (name(i)) holds, for childOf.
func holds(n int, name func(i int) string) func(string) bool {
	var gitignore, ignore bool
	for i := range n {
		switch name(i) {
		case ".gitignore":
			gitignore = true
		case ".ignore":
			ignore = true
		}
	}
	return func(name string) bool { return name == ".gitignore" && gitignore || name == ".ignore" && ignore }
}

// keep makes the list keep view from now on: the first time, it works the view out over the
// folders the list holds, reading only the folders the view descends into that no other view
// does. Changes wait meanwhile, so none is missed; the subscribers are not told (what the
// other views keep is unchanged). When ctx ends first the view is not kept, and the next call
// goes on from what was read.
func (fl *FileList) keep(ctx context.Context, v View) {
	fl.mu.RLock()
	kept := fl.views.has(v)
	fl.mu.RUnlock()
	if kept {
		return
	}
	fl.applyMu.Lock()
	defer fl.applyMu.Unlock()
	fl.mu.Lock()
	if fl.views.has(v) {
		fl.mu.Unlock()
		return
	}
	// Top down from the root: a folder's filter needs its parent's, and the rule files the
	// folder holds.
	type todo struct {
		dir string
		mk  func(has func(string) bool) *Filter
	}
	var missing []todo
	stack := []todo{{fl.root, func(func(string) bool) *Filter { return fl.ws.NewFilter(fl.root, viewOptions[v]) }}}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := fl.dirs[t.dir]
		if f == nil {
			missing = append(missing, t)
			continue
		}
		vf := t.mk(holds(len(f.kids), func(i int) string { return f.kids[i].name }))
		f.filters[v] = vf
		for i := range f.kids {
			k := &f.kids[i]
			if vf.Skip(k.name, k.IsDir()) {
				continue
			}
			k.views |= 1 << v
			if k.IsDir() {
				name := k.name
				stack = append(stack, todo{filepath.Join(t.dir, name), func(has func(string) bool) *Filter { return vf.childOf(name, has) }})
			}
		}
	}
	fl.mu.Unlock()
	for _, t := range missing {
		// A folder only this view descends into: read (and watch) it and what is below it.
		fl.scanInto(ctx, t.dir, func(has func(string) bool) [numViews]*Filter {
			var out [numViews]*Filter
			out[v] = t.mk(has)
			return out
		})
	}
	if ctx.Err() != nil {
		return
	}
	fl.mu.Lock()
	fl.views |= 1 << v
	fl.mu.Unlock()
}

// logScanErr reports a scan the watcher started that failed for another reason than the
// list closing: the list then holds what it had, which its users may show stale.
func logScanErr(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		slog.Warn("file list: a rescan failed; the list may be stale", "err", err)
	}
}
