package search

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnhq/cairn/core/workspace"
)

// The live index: per workspace root, a trigram index of the files a search
// reads, kept by the daemon across tasks. It never decides what a search finds: the search
// walks the tree with its own rules as always, and the index only lets it skip files whose
// trigrams show they cannot match. Freshness is checked at query time: a file whose size or
// modification time differs from what was indexed, or that was never indexed, is indexed
// again on the spot and decided from its new trigrams; a deleted file is simply not walked.
// So results are exactly the scan's, whatever changed on disk since the build.

// Defaults of an Indexes.
const (
	// DefaultIdle is how long an index unused by any search is kept.
	DefaultIdle = 10 * time.Minute
	// maxIndexed is the largest file whose trigrams are kept; a larger one is always read.
	maxIndexed = 8 << 20
)

// rebuildMin is the garbage postings below which an index is never rebuilt (a variable so a
// test can see a rebuild on a small tree).
var rebuildMin = 1 << 16

// Indexes holds the index of each workspace root searched recently. It is safe for
// concurrent use.
type Indexes struct {
	idle  time.Duration
	lists *workspace.Lists // the daemon's file lists (nil: every refresh walks)
	// mu guards m.
	mu sync.Mutex
	m  map[string]*Index // by root
}

// NewIndexes returns an empty set of indexes that drops an index idle for longer than idle
// (0 means DefaultIdle). Each index takes its file set from its root's list in lists, the
// daemon's file lists shared with the @ index and list_files, which the caller closes after
// Close; with nil lists (or where a list cannot tell it is current, workspace.ErrUnwatched)
// every refresh and every indexed search walks the tree.
func NewIndexes(idle time.Duration, lists *workspace.Lists) *Indexes {
	if idle <= 0 {
		idle = DefaultIdle
	}
	return &Indexes{idle: idle, lists: lists, m: map[string]*Index{}}
}

// For returns the index of root, creating it and starting its build in the background on
// first need. The index is usable once Ready; until then searches scan.
func (r *Indexes) For(root string) *Index {
	r.mu.Lock()
	defer r.mu.Unlock()
	ix := r.m[root]
	if ix == nil {
		ix = newIndex(root, r.lists)
		r.m[root] = ix
		ix.timer = time.AfterFunc(r.idle, func() { r.dropIfIdle(root, ix) })
		ix.background(ix.build)
	}
	ix.touch()
	return ix
}

// IndexStatus is one warm index, for `cairn status` (docs/cli.md, "Keeping a daemon warm").
type IndexStatus struct {
	Root string
	// Ready: searches of the root use the index; until then they scan while it builds.
	Ready bool
	Files int
}

// List returns the indexes held now, by root.
func (r *Indexes) List() []IndexStatus {
	r.mu.Lock()
	ixs := make(map[string]*Index, len(r.m))
	for root, ix := range r.m {
		ixs[root] = ix
	}
	r.mu.Unlock()
	out := make([]IndexStatus, 0, len(ixs))
	for root, ix := range ixs {
		ix.mu.RLock()
		n := len(ix.files)
		ix.mu.RUnlock()
		out = append(out, IndexStatus{Root: root, Ready: ix.Ready(), Files: n})
	}
	slices.SortFunc(out, func(a, b IndexStatus) int { return strings.Compare(a.Root, b.Root) })
	return out
}

// Close stops every build and refresh, waits for them, and drops every index.
func (r *Indexes) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for root, ix := range r.m {
		ix.stop()
		delete(r.m, root)
	}
}

// dropIfIdle drops ix when no search used it for the idle time, or checks again later.
func (r *Indexes) dropIfIdle(root string, ix *Index) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[root] != ix {
		return
	}
	if since := time.Since(ix.lastUse()); since < r.idle || !ix.Ready() {
		// A search used it lately, or it is still being built for one: not idle.
		ix.timer.Reset(max(r.idle-since, r.idle/2))
		return
	}
	slog.Debug("search index dropped after idling", "root", root)
	ix.stop()
	delete(r.m, root)
}

// covering returns the index of the workspace root holding dir (the innermost root of
// tree that contains it), or nil when dir lies in no root or tree does not know its roots:
// a folder searched outside the workspace is scanned, never indexed.
func (r *Indexes) covering(tree Walker, dir string) *Index {
	rs, ok := tree.(rooted)
	if !ok {
		return nil
	}
	best := ""
	for _, x := range rs.Roots() {
		if coveredBy([]string{x.Path}, dir) && len(x.Path) > len(best) {
			best = x.Path
		}
	}
	if best == "" {
		return nil
	}
	return r.For(best)
}

// fileKind says how an indexed file takes part in searches.
type fileKind uint8

const (
	kindText   fileKind = iota // its trigrams are in the postings
	kindBinary                 // a NUL in its first bytes: no search reads it
	kindLarge                  // too large to index: every search reads it
)

// entry is what the index knows of one file, valid while size and mtime are unchanged.
type entry struct {
	id    uint32
	ntri  uint32 // its postings, which turn to garbage when it is indexed again or deleted
	size  int64
	mtime int64
	kind  fileKind
}

// Index is one root's trigram index.
type Index struct {
	root  string
	timer *time.Timer
	// done is closed when the index stops: its build and refreshes (background) end, and
	// wg, which counts them, lets stop wait for them.
	done chan struct{}
	wg   sync.WaitGroup

	mu    sync.RWMutex
	ready bool
	// readyCh is closed while ready is set (a fresh one is made when a rebuild clears it):
	// Wait waits on it.
	readyCh chan struct{}
	used    time.Time
	files   map[string]entry // by absolute path
	post    postingStore
	// next is the next id: a file indexed again gets a new one, and ids never restart (a
	// search's candidate bits hold the ids below the next of its start).
	next uint32
	// total postings held, and garbage: those of files indexed again or gone since. When
	// garbage outweighs the rest, the next refresh starts over.
	total, garbage int
	// list is the last refresh's files in path order, valid while the root's file list has
	// seen no change since generation listGen (and listOK: every folder was watched).
	list    []listedFile
	listGen uint64
	listOK  bool

	lists *workspace.Lists // where the build opens fl (nil: no file list)
	// fl is the root's file list, opened by the build and released by stop (nil before, or
	// when it could not be opened: refreshes walk).
	fl         atomic.Pointer[workspace.FileList]
	watchMu    sync.Mutex // guards closed and starting background work
	closed     bool
	refreshing atomic.Bool
	fast       atomic.Int64  // searches answered from the list (for tests and the bench)
	bytes      int64         // source bytes indexed (for the memory report)
	built      time.Duration // how long the first build took
}

func newIndex(root string, lists *workspace.Lists) *Index {
	return &Index{root: root, lists: lists, done: make(chan struct{}), readyCh: make(chan struct{}), files: map[string]entry{}}
}

// background runs fn on a goroutine of the index, with a context that ends when the index
// stops; stop waits for it. It reports false, running nothing, once the index stopped.
func (ix *Index) background(fn func(ctx context.Context)) bool {
	ix.watchMu.Lock()
	if ix.closed {
		ix.watchMu.Unlock()
		return false
	}
	ix.wg.Add(2)
	ix.watchMu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // ends ctx when the index stops, or returns when fn did
		defer ix.wg.Done()
		select {
		case <-ix.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() {
		defer ix.wg.Done()
		defer cancel()
		fn(ctx)
	}()
	return true
}

// setReadyLocked sets ready and its channel; ix.mu is held.
func (ix *Index) setReadyLocked(ready bool) {
	switch {
	case ready && !ix.ready:
		close(ix.readyCh)
	case !ready && ix.ready:
		ix.readyCh = make(chan struct{})
	}
	ix.ready = ready
}

// Ready reports whether the first build has finished.
func (ix *Index) Ready() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.ready
}

// Stats reports the files and source bytes indexed, the postings held and how long the
// first build took (0 while it runs).
func (ix *Index) Stats() (files int, source int64, postings int, build time.Duration) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.files), ix.bytes, ix.total, ix.built
}

// Wait blocks until the index is ready or ctx ends; an index stopped first answers
// context.Canceled.
func (ix *Index) Wait(ctx context.Context) error {
	for {
		ix.mu.RLock()
		ready, ch := ix.ready, ix.readyCh
		ix.mu.RUnlock()
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ix.done:
			return context.Canceled
		case <-ch:
		}
	}
}

func (ix *Index) touch() {
	ix.mu.Lock()
	ix.used = time.Now()
	ix.mu.Unlock()
}

func (ix *Index) lastUse() time.Time {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.used
}

// stop ends the index's build and refreshes, waits for them and releases its file list.
func (ix *Index) stop() {
	if ix.timer != nil {
		ix.timer.Stop()
	}
	ix.watchMu.Lock()
	if ix.closed {
		ix.watchMu.Unlock()
		return
	}
	ix.closed = true
	close(ix.done)
	ix.watchMu.Unlock()
	ix.wg.Wait()
	if fl := ix.fl.Swap(nil); fl != nil {
		fl.Release()
	}
}

// listedFile is one file of the last refresh walk.
type listedFile struct {
	path string
	id   uint32
	kind fileKind
}

// build opens the root's file list and makes the first refresh; the index is ready when it
// ends.
func (ix *Index) build(ctx context.Context) {
	start := time.Now()
	if ix.lists != nil {
		fl, err := ix.lists.Open(ctx, ix.root)
		switch {
		case err == nil:
			ix.fl.Store(fl)
		case ctx.Err() == nil:
			slog.Warn("search index: no file list for the root; refreshes walk", "root", ix.root, "err", err)
		}
	}
	if !ix.refresh(ctx) {
		return
	}
	ix.mu.Lock()
	ix.post.freeze()
	ix.setReadyLocked(true)
	ix.built = time.Since(start)
	files, took := len(ix.files), ix.built
	ix.mu.Unlock()
	// The build's garbage (read buffers, the postings waiting between folds) is gone: hand
	// its pages back now rather than over the scavenger's next minutes, since a warm index
	// is meant to cost the daemon a quarter of its source at most (docs/performance.md, "P11").
	debug.FreeOSMemory()
	slog.Debug("search index ready", "root", ix.root, "files", files, "took", took)
}

// refresh takes the files a search of the whole root reads (the root's file list, or a walk
// where the list cannot tell it is current), indexes every one not indexed as it is now,
// forgets the files no longer there, and records the file set. Where the list can tell, the
// set stays valid until the list sees a change, and a search of the whole root then reads its
// candidates from it without walking.
func (ix *Index) refresh(ctx context.Context) bool {
	ix.mu.Lock()
	if ix.garbage > ix.total-ix.garbage && ix.garbage > rebuildMin {
		// Mostly garbage: start over. Searches scan meanwhile; ids go on from next.
		slog.Debug("search index: rebuilding", "root", ix.root, "postings", ix.total, "garbage", ix.garbage)
		ix.files, ix.post, ix.list = map[string]entry{}, postingStore{}, nil
		ix.total, ix.garbage, ix.bytes = 0, 0, 0
		ix.setReadyLocked(false)
	}
	rebuilding := !ix.ready
	ix.mu.Unlock()
	gen, watched := ix.changes(ctx)
	var paths []string
	if watched {
		fl := ix.fl.Load()
		paths, watched = fl.Files(ctx, workspace.SearchView), fl.Complete()
	} else {
		var err error
		if paths, err = ix.walk(ctx); err != nil {
			if ctx.Err() == nil {
				slog.Warn("search index: walk failed; searches scan", "root", ix.root, "err", err)
			}
			return false
		}
	}
	list := ix.indexFiles(ctx, paths)
	if ctx.Err() != nil {
		return false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(list) < len(ix.files) {
		seen := make(map[string]bool, len(list))
		for _, f := range list {
			seen[f.path] = true
		}
		for p, e := range ix.files {
			if !seen[p] {
				delete(ix.files, p)
				ix.bytes -= e.size
				ix.garbage += int(e.ntri)
			}
		}
	}
	ix.list, ix.listGen, ix.listOK = list, gen, watched
	if rebuilding && ix.built > 0 {
		ix.post.freeze()
		ix.setReadyLocked(true) // a rebuild is done (a first build is finished by build)
	}
	return true
}

// walk returns the regular files a search of the whole root reads, in path order.
func (ix *Index) walk(ctx context.Context) ([]string, error) {
	ws, err := workspace.New(ix.root)
	if err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex // guards paths
		paths []string
	)
	err = ws.Walk(ctx, ix.root, workspace.SearchOptions, runtime.GOMAXPROCS(0), func(path string, d fs.DirEntry, _ *workspace.Filter) error {
		if d.Type().IsRegular() {
			mu.Lock()
			paths = append(paths, path)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return paths, nil
}

// indexFiles indexes, in parallel, every one of paths (in path order) not indexed as it is
// now, and returns them as the index knows them, in the same order; a file gone or changed
// into something else since is left out.
func (ix *Index) indexFiles(ctx context.Context, paths []string) []listedFile {
	out := make([]listedFile, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				path := paths[i]
				info, err := os.Lstat(path)
				if err != nil || !info.Mode().IsRegular() {
					continue // gone, or no longer a file, since it was listed
				}
				ix.mu.RLock()
				e, ok := ix.files[path]
				ix.mu.RUnlock()
				if !ok || e.size != info.Size() || e.mtime != info.ModTime().UnixNano() {
					if e, _, ok = ix.add(path, info, &buf); !ok {
						continue
					}
				}
				out[i] = listedFile{path: path, id: e.id, kind: e.kind}
			}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(out, func(f listedFile) bool { return f.path == "" })
}

// changes returns the count of changes the root's file list applied so far, every change
// made before the call included (workspace.FileList.Sync), and whether the index can tell at
// all: it has a list, is open, and the system orders its events.
func (ix *Index) changes(ctx context.Context) (uint64, bool) {
	ix.watchMu.Lock()
	closed := ix.closed
	ix.watchMu.Unlock()
	fl := ix.fl.Load()
	if closed || fl == nil {
		return 0, false
	}
	gen, err := fl.Sync(ctx)
	return gen, err == nil
}

// unchanged reports whether nothing changed in the tree since the last refresh began and
// every folder of it is watched; when something did, it starts a refresh in the
// background (one at a time) and the caller walks.
func (ix *Index) unchanged(ctx context.Context) bool {
	gen, watched := ix.changes(ctx)
	if !watched {
		return false
	}
	ix.mu.RLock()
	ok := ix.listOK && ix.list != nil && gen == ix.listGen
	ix.mu.RUnlock()
	if !ok && ix.refreshing.CompareAndSwap(false, true) {
		ix.refreshInBackground()
	}
	return ok
}

// refreshInBackground runs one refresh in the background; the caller set refreshing, which
// the refresh clears when it ends (or at once when the index stopped).
func (ix *Index) refreshInBackground() {
	if !ix.background(func(ctx context.Context) {
		for {
			ix.refresh(ctx)
			ix.refreshing.Store(false)
			// Files indexed again while this refresh ran could not start one of their own: when
			// they left the index mostly garbage, start over now.
			if ctx.Err() != nil || !ix.mostlyGarbage() || !ix.refreshing.CompareAndSwap(false, true) {
				return
			}
		}
	}) {
		ix.refreshing.Store(false)
	}
}

// mostlyGarbage reports whether the postings of files indexed again or gone outweigh the
// rest (and are many enough to be worth a rebuild).
func (ix *Index) mostlyGarbage() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.garbage > ix.total-ix.garbage && ix.garbage > rebuildMin
}

// add reads and indexes one file, returning its entry and sorted trigrams; ok is false when
// it cannot be read (the search then reads it and decides, as the scan does).
func (ix *Index) add(path string, info fs.FileInfo, bp *[]byte) (e entry, tris []uint32, ok bool) {
	e = entry{size: info.Size(), mtime: info.ModTime().UnixNano()}
	if e.size > maxIndexed {
		e.kind = kindLarge
	} else {
		data, err := readInto(path, *bp)
		if err != nil {
			return entry{}, nil, false
		}
		*bp = data[:0]
		if int64(len(data)) != e.size {
			return entry{}, nil, false // changing while read: decided by the search itself
		}
		if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
			e.kind = kindBinary
		} else {
			tris = fileTrigrams(data)
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e.id = ix.next
	e.ntri = uint32(len(tris))
	ix.next++
	ix.post.add(e.id, tris)
	ix.total += len(tris)
	if old, had := ix.files[path]; had {
		ix.bytes -= old.size
		ix.garbage += int(old.ntri)
		if ix.garbage > ix.total-ix.garbage && ix.garbage > rebuildMin && ix.refreshing.CompareAndSwap(false, true) {
			// Mostly garbage: the refresh that starts over. Where no watch starts refreshes
			// (no hub, or a system that does not order its events), this is the only place
			// that would.
			ix.refreshInBackground()
		}
	}
	ix.files[path] = e
	ix.bytes += e.size
	return e, tris, true
}

// trigramSet collects the distinct trigrams of one file: a bit per possible trigram, and the
// list of those set, so clearing costs what the file held rather than the whole table.
type trigramSet struct {
	bits []uint64 // 1<<24 bits
	list []uint32
}

var trigramSets = sync.Pool{New: func() any { return &trigramSet{bits: make([]uint64, 1<<24/64)} }}

// fileTrigrams returns the distinct trigrams of data's ASCII-lowercased bytes, sorted.
func fileTrigrams(data []byte) []uint32 {
	if len(data) < 4096 {
		// Small: sorting the few trigrams costs less than touching the shared table.
		out := make([]uint32, 0, max(len(data)-2, 0))
		var t uint32
		for i, c := range data {
			t = (t<<8 | uint32(lowerByte(c))) & 0xffffff
			if i >= 2 {
				out = append(out, t)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	ts := trigramSets.Get().(*trigramSet)
	defer trigramSets.Put(ts)
	ts.list = ts.list[:0]
	var t uint32
	for i, c := range data {
		t = (t<<8 | uint32(lowerByte(c))) & 0xffffff
		if i >= 2 && ts.bits[t/64]&(1<<(t%64)) == 0 {
			ts.bits[t/64] |= 1 << (t % 64)
			ts.list = append(ts.list, t)
		}
	}
	out := slices.Clone(ts.list)
	for _, t := range out {
		ts.bits[t/64] = 0
	}
	slices.Sort(out)
	return out
}

// candidates is a search's use of an index: which files may match.
type candidates struct {
	ix   *Index
	q    *query
	bits []uint64 // ids that satisfy q among the files indexed when the search began
	n    uint32   // the ids below n are those files
	buf  sync.Pool
}

// plan returns the candidate set of q, or nil when the index is not ready or q cannot narrow
// anything (the search then reads every file, as the scan does).
func (ix *Index) plan(q *query) *candidates {
	if ix == nil || q.op == qAll {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.ready {
		return nil
	}
	bits, all := ix.eval(q)
	if all {
		return nil
	}
	return &candidates{ix: ix, q: q, bits: bits, n: ix.next}
}

// eval computes the ids satisfying q as a bit set; all means q does not narrow.
func (ix *Index) eval(q *query) (bits []uint64, all bool) {
	n := (int(ix.next) + 63) / 64
	switch q.op {
	case qAll:
		return nil, true
	case qNone:
		return make([]uint64, n), false
	case qAnd:
		var acc []uint64
		for _, t := range q.tris {
			acc = intersect(acc, ix.postingBits(t, n))
		}
		for _, s := range q.sub {
			b, all := ix.eval(s)
			if !all {
				acc = intersect(acc, b)
			}
		}
		return acc, acc == nil
	}
	acc := make([]uint64, n)
	for _, t := range q.tris {
		ix.post.mark(t, acc)
	}
	for _, s := range q.sub {
		b, all := ix.eval(s)
		if all {
			return nil, true
		}
		for i := range b {
			acc[i] |= b[i]
		}
	}
	return acc, false
}

func (ix *Index) postingBits(t uint32, n int) []uint64 {
	b := make([]uint64, n)
	ix.post.mark(t, b)
	return b
}

// intersect returns a ∩ b, where nil a means "everything".
func intersect(a, b []uint64) []uint64 {
	if a == nil {
		return b
	}
	for i := range a {
		a[i] &= b[i]
	}
	return a
}

// wants reports whether the search must read path: a file indexed as it is now is read
// only if its trigrams allow a match; a changed or new one is indexed first and decided
// from its new trigrams; one that cannot be checked is read.
func (c *candidates) wants(path string, d fs.DirEntry) bool {
	info, err := d.Info()
	if err != nil {
		return true
	}
	c.ix.mu.RLock()
	e, ok := c.ix.files[path]
	c.ix.mu.RUnlock()
	if ok && e.size == info.Size() && e.mtime == info.ModTime().UnixNano() {
		return c.decide(e, nil, true)
	}
	bp, _ := c.buf.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer c.buf.Put(bp)
	e, tris, ok := c.ix.add(path, info, bp)
	if !ok {
		return true
	}
	return c.decide(e, tris, false)
}

func (c *candidates) decide(e entry, tris []uint32, fromBits bool) bool {
	switch e.kind {
	case kindBinary:
		return false
	case kindLarge:
		return true
	}
	if fromBits {
		if e.id >= c.n {
			return true // indexed again by another search since this one began
		}
		return c.bits[e.id/64]&(1<<(e.id%64)) != 0
	}
	return c.q.holds(func(t uint32) bool { _, found := slices.BinarySearch(tris, t); return found })
}

// listed returns the files of the whole root a search must read, in path order, when the
// tree is unchanged since the last refresh walk: the candidates among the listed files and
// every file too large to index. ok is false when the search must walk.
func (c *candidates) listed(ctx context.Context) (paths []string, ok bool) {
	if !c.ix.unchanged(ctx) {
		return nil, false
	}
	c.ix.mu.RLock()
	defer c.ix.mu.RUnlock()
	for _, f := range c.ix.list {
		switch {
		case f.kind == kindLarge, f.kind == kindText && (f.id >= c.n || c.bits[f.id/64]&(1<<(f.id%64)) != 0):
			paths = append(paths, f.path)
		}
	}
	c.ix.fast.Add(1)
	return paths, true
}
