package workspace

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// DefaultQueryLimit is how many matches Query returns when asked for n ≤ 0.
const DefaultQueryLimit = 20

// Match is one @-autocomplete candidate.
type Match struct {
	Path  string // absolute
	Rel   string // as shown to the user (Workspace.Rel), folders end with "/"
	IsDir bool
	Score int
}

type indexEntry struct {
	abs   string
	rel   string
	lower string // ASCII-lowered rel, same byte offsets
	base  int    // start of the last path element in rel
	isDir bool
}

// Index is the workspace's file and folder list for @-autocomplete, built by a parallel,
// ignore-aware scan (IndexOptions) and kept current with fsnotify. A change to an ignore file
// triggers a rescan, since it may show or hide whole subtrees.
type Index struct {
	ws      *Workspace
	watcher *fsnotify.Watcher // nil when the system refused a watcher: the index stays static
	done    chan struct{}
	stopped sync.WaitGroup
	// stop cancels the context of the watcher's goroutine, which bounds the scans it starts
	// (a new folder, a rescan), so a scan under way stops with the index instead of running
	// to its end.
	stop context.CancelFunc

	// mu guards entries, flat and sorted. A fresh scan only fills flat (no map: 100k map
	// inserts cost more than the walk); the first change from the watcher turns it into
	// entries, which then stays the truth and flat becomes a cache of it.
	mu      sync.RWMutex
	entries map[string]indexEntry // by absolute path; nil until the first change
	flat    []indexEntry          // every entry when entries is nil, else its cache (nil: stale)
	sorted  bool                  // flat is in path order (then it is never modified again)
}

// NewIndex scans every root and starts watching. Close stops the watcher. The scan also
// removes the temp files of atomic writes that crashed (older than StaleTempAge) from every
// folder it reads.
func NewIndex(ctx context.Context, ws *Workspace) (*Index, error) {
	ix := &Index{ws: ws, done: make(chan struct{})}
	// The index outlives the call that built it: its scans keep ctx's values, not its end.
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	ix.stop = stop
	if w, err := fsnotify.NewWatcher(); err == nil {
		ix.watcher = w
	}
	if err := ix.scanRoots(ctx); err != nil {
		return nil, errors.Join(err, ix.Close())
	}
	if ix.watcher != nil {
		ix.stopped.Add(1)
		go ix.watch(wctx)
	}
	return ix, nil
}

// Close stops watching. The index keeps answering queries from what it last knew.
func (ix *Index) Close() error {
	select {
	case <-ix.done:
		return nil
	default:
	}
	close(ix.done)
	ix.stop()
	var err error
	if ix.watcher != nil {
		err = ix.watcher.Close()
	}
	ix.stopped.Wait()
	return err
}

// Len returns the number of indexed files and folders.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.entries != nil {
		return len(ix.entries)
	}
	return len(ix.flat)
}

// scanRoots replaces the index with a fresh scan of every root.
func (ix *Index) scanRoots(ctx context.Context) error {
	var all []indexEntry
	for _, r := range ix.ws.roots {
		found, err := ix.collect(ctx, r.Path)
		if err != nil {
			return err
		}
		all = append(all, found...)
	}
	var m map[string]indexEntry
	if len(ix.ws.roots) > 1 {
		m = ix.mapOf(all) // nested roots would list a file twice: the map keeps one
	}
	ix.mu.Lock()
	ix.entries, ix.flat, ix.sorted = m, all, false
	if m != nil {
		ix.flat = nil
	}
	ix.mu.Unlock()
	return nil
}

func (ix *Index) mapOf(es []indexEntry) map[string]indexEntry {
	m := make(map[string]indexEntry, len(es))
	for _, e := range es {
		m[e.abs] = e
	}
	return m
}

// toMap switches to map mode before a change; the caller holds mu.
func (ix *Index) toMap() {
	if ix.entries == nil {
		ix.entries = ix.mapOf(ix.flat)
	}
}

// scan walks dir (already filtered by its parent) and adds what it keeps.
func (ix *Index) scan(ctx context.Context, dir string) error {
	found, err := ix.collect(ctx, dir)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	ix.toMap()
	for _, e := range found {
		ix.entries[e.abs] = e
	}
	ix.flat, ix.sorted = nil, false
	ix.mu.Unlock()
	return nil
}

// collect walks dir (a root, or a folder its parent's rules keep), watching every folder,
// and returns the entries below it in no particular order. It works folder by folder: each
// folder's paths share one allocation and the results are joined once at the end.
func (ix *Index) collect(ctx context.Context, dir string) ([]indexEntry, error) {
	ix.addWatch(dir)
	var mu sync.Mutex
	var parts [][]indexEntry
	total := 0
	err := walkFolders(ctx, ix.ws.NewFilter(dir, IndexOptions), 0, true, func(f *Filter, kept []fs.DirEntry) error {
		if len(kept) == 0 {
			return nil
		}
		es := ix.folderEntries(f.dir, kept)
		mu.Lock()
		parts = append(parts, es)
		total += len(es)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]indexEntry, 0, total)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}

// folderEntries builds the entries of one folder's kept children and watches its subfolders.
// Every string of the folder is a slice of one buffer: "abs/name[/]" holds both the absolute
// path and (as its tail) the relative one; lowered copies follow only where case differs.
func (ix *Index) folderEntries(dir string, kept []fs.DirEntry) []indexEntry {
	// The relative prefix comes from Rel once per folder: roots, names and separators are
	// its business.
	first := kept[0].Name()
	firstRel := ix.ws.Rel(filepath.Join(dir, first))
	relPrefix := strings.TrimSuffix(firstRel, first)
	if !strings.HasSuffix(firstRel, first) || !strings.HasPrefix(dir, "/") || strings.HasSuffix(dir, "/") || strings.ContainsRune(relPrefix, '\\') {
		return ix.slowEntries(dir, kept)
	}
	sep := string(filepath.Separator)
	size := 0
	for _, e := range kept {
		size += 2*(len(dir)+len(e.Name())+2) + len(relPrefix)
	}
	var b strings.Builder
	b.Grow(size)
	type span struct{ abs, end, lower int }
	spans := make([]span, len(kept))
	for i, e := range kept {
		name := e.Name()
		sp := span{abs: b.Len()}
		b.WriteString(dir)
		b.WriteString(sep)
		// rel = relPrefix + name: written here so it is a contiguous tail when relPrefix is
		// a suffix of dir+"/" (one root), else after the absolute path.
		b.WriteString(name)
		if e.IsDir() {
			b.WriteByte('/')
		}
		sp.end = b.Len()
		sp.lower = -1
		spans[i] = sp
	}
	// Relative paths that are not a tail of the absolute one (a multi-root "name:" prefix)
	// and lowered copies go after.
	type extra struct{ rel, lower [2]int }
	extras := make([]extra, len(kept))
	for i, e := range kept {
		sp := spans[i]
		absWithSlash := b.String()[sp.abs:sp.end] // dir/name[/]
		relLen := len(relPrefix) + len(e.Name()) + boolInt(e.IsDir())
		if strings.HasSuffix(absWithSlash[:len(absWithSlash)-relLen+len(relPrefix)], relPrefix) {
			extras[i].rel = [2]int{sp.end - relLen, sp.end}
		} else {
			start := b.Len()
			b.WriteString(relPrefix)
			b.WriteString(absWithSlash[len(dir)+1:])
			extras[i].rel = [2]int{start, b.Len()}
		}
		rel := b.String()[extras[i].rel[0]:extras[i].rel[1]]
		extras[i].lower = extras[i].rel
		if hasUpper(rel) {
			start := b.Len()
			for j := 0; j < len(rel); j++ {
				c := rel[j]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				b.WriteByte(c)
			}
			extras[i].lower = [2]int{start, b.Len()}
		}
	}
	all := b.String()
	out := make([]indexEntry, len(kept))
	for i, e := range kept {
		sp, x := spans[i], extras[i]
		isDir := e.IsDir()
		rel := all[x.rel[0]:x.rel[1]]
		out[i] = indexEntry{
			abs:   all[sp.abs : sp.end-boolInt(isDir)],
			rel:   rel,
			lower: all[x.lower[0]:x.lower[1]],
			base:  strings.LastIndexByte(strings.TrimSuffix(rel, "/"), '/') + 1,
			isDir: isDir,
		}
		if isDir {
			ix.addWatch(out[i].abs)
		}
	}
	return out
}

// slowEntries is folderEntries without the shared buffer, for paths it cannot slice.
func (ix *Index) slowEntries(dir string, kept []fs.DirEntry) []indexEntry {
	out := make([]indexEntry, len(kept))
	for i, e := range kept {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			ix.addWatch(p)
		}
		out[i] = ix.entryFor(p, e.IsDir())
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

func (ix *Index) addWatch(dir string) {
	if ix.watcher != nil {
		// Out of inotify watches: the folder is still indexed, just not kept current.
		_ = ix.watcher.Add(dir)
	}
}

func (ix *Index) entryFor(path string, isDir bool) indexEntry {
	rel := ix.ws.Rel(path)
	if isDir {
		rel += "/"
	}
	base := strings.LastIndexByte(strings.TrimSuffix(rel, "/"), '/') + 1
	return indexEntry{abs: path, rel: rel, lower: asciiLower(rel), base: base, isDir: isDir}
}

func (ix *Index) watch(ctx context.Context) {
	defer ix.stopped.Done()
	for {
		select {
		case <-ix.done:
			return
		case ev, ok := <-ix.watcher.Events:
			if !ok {
				return
			}
			ix.apply(ctx, ev)
		case _, ok := <-ix.watcher.Errors:
			if !ok {
				return
			}
			// An overflow lost events: only a rescan can restore the truth.
			ix.rescan(ctx)
		}
	}
}

// ignoreFileNames change what a scan keeps; an edit to one means a rescan.
var ignoreFileNames = map[string]bool{".gitignore": true, ".clineignore": true, ".cairnignore": true}

func (ix *Index) apply(ctx context.Context, ev fsnotify.Event) {
	name := filepath.Base(ev.Name)
	if ignoreFileNames[name] && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) != 0 {
		ix.rescan(ctx)
		return
	}
	switch {
	case ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0:
		// A rename reports the old name here and the new one as a Create in its folder.
		ix.remove(ev.Name)
	case ev.Op&fsnotify.Create != 0:
		st, err := os.Lstat(ev.Name)
		if err != nil {
			return
		}
		parent := ix.ws.NewFilter(filepath.Dir(ev.Name), IndexOptions)
		if parent.Skip(name, st.IsDir()) {
			return
		}
		ix.mu.Lock()
		ix.toMap()
		ix.entries[ev.Name] = ix.entryFor(ev.Name, st.IsDir())
		ix.flat, ix.sorted = nil, false
		ix.mu.Unlock()
		if st.IsDir() {
			// Files may have landed before the watch did: scan what is there now. A scan that
			// fails (the folder went away, the index closed) leaves the index as it was.
			logScanErr(ctx, ix.scan(ctx, ev.Name))
		}
	}
}

func (ix *Index) remove(path string) {
	prefix := path + string(filepath.Separator)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.toMap()
	e, ok := ix.entries[path]
	if !ok {
		return
	}
	delete(ix.entries, path)
	if e.isDir {
		for p := range ix.entries {
			if strings.HasPrefix(p, prefix) {
				delete(ix.entries, p)
			}
		}
	}
	ix.flat, ix.sorted = nil, false
}

// rescan reads every root again; one that fails (the index closed) keeps what it had.
func (ix *Index) rescan(ctx context.Context) {
	logScanErr(ctx, ix.scanRoots(ctx))
}

// logScanErr reports a scan the watcher started that failed for another reason than the
// index closing: the index then lists what it had, which @-mentions may show stale.
func logScanErr(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		slog.Warn("workspace index: a rescan failed; the file list may be stale", "err", err)
	}
}

// snapshot returns the entries as a slice, sorted by path so equal scores keep a stable order.
func (ix *Index) snapshot() []indexEntry {
	ix.mu.RLock()
	flat, sorted := ix.flat, ix.sorted
	ix.mu.RUnlock()
	if sorted {
		return flat
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.sorted {
		if ix.entries != nil {
			ix.flat = make([]indexEntry, 0, len(ix.entries))
			for _, e := range ix.entries {
				ix.flat = append(ix.flat, e)
			}
		}
		slices.SortFunc(ix.flat, func(a, b indexEntry) int { return strings.Compare(a.rel, b.rel) })
		ix.sorted = true
	}
	return ix.flat
}

// Query returns the n best fuzzy matches for q (n ≤ 0: DefaultQueryLimit), best first. Spaces
// in q are ignored. An empty query returns the shallowest entries.
func (ix *Index) Query(q string, n int) []Match {
	if n <= 0 {
		n = DefaultQueryLimit
	}
	q = asciiLower(strings.ReplaceAll(q, " ", ""))
	flat := ix.snapshot()
	workers := runtime.GOMAXPROCS(0)
	if len(flat) < 4096 {
		workers = 1
	}
	chunk := (len(flat) + workers - 1) / workers
	parts := make([][]scored, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(flat))
		if lo >= hi {
			continue
		}
		wg.Go(func() { parts[w] = topN(flat, lo, hi, q, n) })
	}
	wg.Wait()
	var all []scored
	for _, p := range parts {
		all = append(all, p...)
	}
	slices.SortFunc(all, compareScored)
	if len(all) > n {
		all = all[:n]
	}
	out := make([]Match, len(all))
	for i, s := range all {
		e := flat[s.idx]
		out[i] = Match{Path: e.abs, Rel: e.rel, IsDir: e.isDir, Score: s.score}
	}
	return out
}

type scored struct {
	score int
	idx   int
}

// compareScored orders best first; the index (path order) breaks ties.
func compareScored(a, b scored) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// topN keeps the n best of flat[lo:hi] in a small sorted buffer: n is tiny (20), so insertion
// beats a heap and allocates once.
func topN(flat []indexEntry, lo, hi int, q string, n int) []scored {
	best := make([]scored, 0, n+1)
	for i := lo; i < hi; i++ {
		e := &flat[i]
		s, ok := fuzzyScore(e.rel, e.lower, e.base, q)
		if !ok {
			continue
		}
		if q == "" {
			s = -strings.Count(e.rel, "/")
		}
		c := scored{s, i}
		if len(best) == n && compareScored(c, best[n-1]) >= 0 {
			continue
		}
		pos, _ := slices.BinarySearchFunc(best, c, compareScored)
		best = slices.Insert(best, pos, c)
		if len(best) > n {
			best = best[:n]
		}
	}
	return best
}

// asciiLower lowers ASCII letters only, keeping byte offsets aligned with the original.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
