package workspace

import (
	"cmp"
	"context"
	"io/fs"
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

	// mu guards entries and flat.
	mu      sync.RWMutex
	entries map[string]indexEntry // by absolute path
	flat    []indexEntry          // snapshot for queries; nil when entries changed since
}

// NewIndex scans every root and starts watching. Close stops the watcher.
func NewIndex(ctx context.Context, ws *Workspace) (*Index, error) {
	ix := &Index{ws: ws, done: make(chan struct{}), entries: map[string]indexEntry{}}
	if w, err := fsnotify.NewWatcher(); err == nil {
		ix.watcher = w
	}
	for _, r := range ws.roots {
		if err := ix.scan(ctx, r.Path); err != nil {
			ix.Close()
			return nil, err
		}
	}
	if ix.watcher != nil {
		ix.stopped.Add(1)
		go ix.watch()
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
	return len(ix.entries)
}

// scan walks dir (already filtered by its parent, or a root) and adds what it keeps.
func (ix *Index) scan(ctx context.Context, dir string) error {
	ix.addWatch(dir)
	var mu sync.Mutex
	var found []indexEntry
	err := ix.ws.Walk(ctx, dir, IndexOptions, 0, func(path string, d fs.DirEntry, _ *Filter) error {
		isDir := d.IsDir()
		if isDir {
			ix.addWatch(path)
		}
		e := ix.entryFor(path, isDir)
		mu.Lock()
		found = append(found, e)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	ix.mu.Lock()
	if len(ix.entries) == 0 {
		ix.entries = make(map[string]indexEntry, len(found)) // no rehashing on the first scan
	}
	for _, e := range found {
		ix.entries[e.abs] = e
	}
	ix.flat = nil
	ix.mu.Unlock()
	return nil
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

func (ix *Index) watch() {
	defer ix.stopped.Done()
	for {
		select {
		case <-ix.done:
			return
		case ev, ok := <-ix.watcher.Events:
			if !ok {
				return
			}
			ix.apply(ev)
		case _, ok := <-ix.watcher.Errors:
			if !ok {
				return
			}
			// An overflow lost events: only a rescan can restore the truth.
			ix.rescan()
		}
	}
}

// ignoreFileNames change what a scan keeps; an edit to one means a rescan.
var ignoreFileNames = map[string]bool{".gitignore": true, ".clineignore": true, ".cairnignore": true}

func (ix *Index) apply(ev fsnotify.Event) {
	name := filepath.Base(ev.Name)
	if ignoreFileNames[name] && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) != 0 {
		ix.rescan()
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
		ix.entries[ev.Name] = ix.entryFor(ev.Name, st.IsDir())
		ix.flat = nil
		ix.mu.Unlock()
		if st.IsDir() {
			// Files may have landed before the watch did: scan what is there now.
			_ = ix.scan(context.Background(), ev.Name)
		}
	}
}

func (ix *Index) remove(path string) {
	prefix := path + string(filepath.Separator)
	ix.mu.Lock()
	defer ix.mu.Unlock()
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
	ix.flat = nil
}

func (ix *Index) rescan() {
	ix.mu.Lock()
	ix.entries = map[string]indexEntry{}
	ix.flat = nil
	ix.mu.Unlock()
	for _, r := range ix.ws.roots {
		_ = ix.scan(context.Background(), r.Path)
	}
}

// snapshot returns the entries as a slice, sorted by path so equal scores keep a stable order.
func (ix *Index) snapshot() []indexEntry {
	ix.mu.RLock()
	flat := ix.flat
	ix.mu.RUnlock()
	if flat != nil {
		return flat
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.flat == nil {
		ix.flat = make([]indexEntry, 0, len(ix.entries))
		for _, e := range ix.entries {
			ix.flat = append(ix.flat, e)
		}
		slices.SortFunc(ix.flat, func(a, b indexEntry) int { return strings.Compare(a.rel, b.rel) })
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
