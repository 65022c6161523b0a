package search

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"runtime"
	"slices"
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

// Indexes holds the index of each workspace root searched recently. It is safe for
// concurrent use.
type Indexes struct {
	idle time.Duration
	mu   sync.Mutex
	m    map[string]*Index // by root
}

// NewIndexes returns an empty set of indexes that drops an index idle for longer than idle
// (0 means DefaultIdle).
func NewIndexes(idle time.Duration) *Indexes {
	if idle <= 0 {
		idle = DefaultIdle
	}
	return &Indexes{idle: idle, m: map[string]*Index{}}
}

// Shared is the daemon's set: once EnableIndexes is called, every search_files tool made by
// New uses it, so the tasks on one workspace share one warm index. A one-shot process
// (`cairn tool` without --connect) never enables it: a background build would only compete
// with its one scan.
var Shared = NewIndexes(0)

var indexesOn atomic.Bool

// EnableIndexes makes search_files tools use Shared from now on (the daemon calls it once).
func EnableIndexes() { indexesOn.Store(true) }

// For returns the index of root, creating it and starting its build in the background on
// first need. The index is usable once Ready; until then searches scan.
func (r *Indexes) For(root string) *Index {
	r.mu.Lock()
	defer r.mu.Unlock()
	ix := r.m[root]
	if ix == nil {
		ix = newIndex(root)
		r.m[root] = ix
		ix.timer = time.AfterFunc(r.idle, func() { r.dropIfIdle(root, ix) })
		go ix.build()
	}
	ix.touch()
	return ix
}

// Close stops every build and drops every index.
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
	if since := time.Since(ix.lastUse()); since < r.idle {
		ix.timer.Reset(r.idle - since)
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
	size  int64
	mtime int64
	kind  fileKind
}

// Index is one root's trigram index.
type Index struct {
	root   string
	ctx    context.Context
	cancel context.CancelFunc
	timer  *time.Timer

	mu    sync.RWMutex
	ready bool
	used  time.Time
	files map[string]entry    // by absolute path
	post  map[uint32][]uint32 // trigram -> ids, ascending
	next  uint32              // the next id; a file indexed again gets a new one
	bytes int64               // source bytes indexed (for the memory report)
	built time.Duration       // how long the first build took
}

func newIndex(root string) *Index {
	ctx, cancel := context.WithCancel(context.Background())
	return &Index{root: root, ctx: ctx, cancel: cancel, files: map[string]entry{}, post: map[uint32][]uint32{}}
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
	for _, p := range ix.post {
		postings += len(p)
	}
	return len(ix.files), ix.bytes, postings, ix.built
}

// Wait blocks until the index is ready or ctx ends.
func (ix *Index) Wait(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for !ix.Ready() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ix.ctx.Done():
			return ix.ctx.Err()
		case <-t.C:
		}
	}
	return nil
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

func (ix *Index) stop() {
	ix.cancel()
	if ix.timer != nil {
		ix.timer.Stop()
	}
}

// build indexes every file a search of the root would read.
func (ix *Index) build() {
	start := time.Now()
	ws, err := workspace.New(ix.root)
	if err != nil {
		slog.Warn("search index: cannot open the root; searches scan", "root", ix.root, "err", err)
		return
	}
	var bufs sync.Pool
	err = ws.Walk(ix.ctx, ix.root, workspace.SearchOptions, runtime.GOMAXPROCS(0), func(path string, d fs.DirEntry, _ *workspace.Filter) error {
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone since the folder was read
		}
		bp, _ := bufs.Get().(*[]byte)
		if bp == nil {
			bp = new([]byte)
		}
		ix.add(path, info, bp)
		bufs.Put(bp)
		return nil
	})
	if err != nil {
		if ix.ctx.Err() == nil {
			slog.Warn("search index: build failed; searches scan", "root", ix.root, "err", err)
		}
		return
	}
	ix.mu.Lock()
	ix.ready = true
	ix.built = time.Since(start)
	files, took := len(ix.files), ix.built
	ix.mu.Unlock()
	slog.Debug("search index ready", "root", ix.root, "files", files, "took", took)
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
	ix.next++
	for _, t := range tris {
		ix.post[t] = append(ix.post[t], e.id)
	}
	if old, had := ix.files[path]; had {
		ix.bytes -= old.size
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
		for _, id := range ix.post[t] {
			acc[id/64] |= 1 << (id % 64)
		}
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
	for _, id := range ix.post[t] {
		b[id/64] |= 1 << (id % 64)
	}
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
