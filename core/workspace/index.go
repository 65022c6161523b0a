package workspace

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

// Index is the workspace's file and folder list for @-autocomplete: the ListView of each
// root's file list (Lists), kept current as the lists change. Its entries carry what fuzzy
// matching needs (the path as the user sees it, lowered), so queries never touch the lists.
type Index struct {
	ws    *Workspace
	own   *Lists      // lists the index made for itself (NewIndex without lists), closed with it
	lists []*FileList // one per root, held while the index is open
	// cancels end the subscriptions; closeMu guards them and closed.
	closeMu sync.Mutex
	cancels []func()
	closed  bool

	// changeMu serialises the changes the lists tell (several roots tell from several
	// goroutines), so a rebuild and a change never interleave.
	changeMu sync.Mutex
	// mu guards entries, flat and sorted. A rebuild only fills flat (no map: 100k map
	// inserts cost more than the walk); the first change turns it into entries, which then
	// stays the truth and flat becomes a cache of it.
	mu      sync.RWMutex
	entries map[string]indexEntry // by absolute path; nil until the first change
	flat    []indexEntry          // every entry when entries is nil, else its cache (nil: stale)
	sorted  bool                  // flat is in path order (then it is never modified again)
}

// NewIndex opens the file list of every root in lists (the daemon's, shared with the search
// index and list_files; nil: lists of the index's own, never kept current) and keeps the
// index current as they change. Close releases them; the caller closes lists after. The
// first scan of a root also removes the temp files of atomic writes that crashed (older than
// StaleTempAge) from every folder it reads.
func NewIndex(ctx context.Context, ws *Workspace, lists *Lists) (*Index, error) {
	ix := &Index{ws: ws}
	if lists == nil {
		ix.own = NewLists(nil)
		lists = ix.own
	}
	for _, r := range ws.roots {
		fl, err := lists.Open(ctx, r.Path)
		if err != nil {
			return nil, errors.Join(err, ix.Close())
		}
		ix.lists = append(ix.lists, fl)
	}
	for _, fl := range ix.lists {
		cancel := fl.Subscribe(ix.changed)
		ix.closeMu.Lock()
		ix.cancels = append(ix.cancels, cancel)
		ix.closeMu.Unlock()
	}
	return ix, nil
}

// changed applies one change a list told.
func (ix *Index) changed(c Change) {
	ix.changeMu.Lock()
	defer ix.changeMu.Unlock()
	switch {
	case c.Reset:
		ix.rebuild()
	case c.Removed != "":
		ix.remove(c.Removed)
	default:
		ix.mu.Lock()
		ix.toMap()
		for _, a := range c.Added {
			if a.In(ListView) {
				ix.entries[a.Path] = ix.entryFor(a.Path, a.IsDir)
			}
		}
		ix.flat, ix.sorted = nil, false
		ix.mu.Unlock()
	}
}

// Close ends the index's subscriptions and releases the lists. The index keeps answering
// queries from what it last knew.
func (ix *Index) Close() error {
	ix.closeMu.Lock()
	if ix.closed {
		ix.closeMu.Unlock()
		return nil
	}
	ix.closed = true
	cancels := ix.cancels
	ix.closeMu.Unlock()
	for _, c := range cancels {
		c()
	}
	for _, fl := range ix.lists {
		fl.Release()
	}
	if ix.own != nil {
		ix.own.Close()
	}
	return nil
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

// rebuild replaces the index with the ListView of every root's list.
func (ix *Index) rebuild() {
	// One slice per root, sized before the folders are read; each folder fills its own part
	// of it (its strings sharing one allocation), so nothing is joined or copied after.
	parts := make([][]indexEntry, len(ix.lists))
	for i, fl := range ix.lists {
		var next atomic.Int64
		// ListView is always kept: nothing is read from the disk here, so no context bounds it.
		fl.Folders(context.Background(), ListView, func(n int) { parts[i] = make([]indexEntry, n) }, func(dir string, kept []fs.DirEntry) {
			if len(kept) > 0 {
				end := int(next.Add(int64(len(kept))))
				ix.folderEntries(parts[i][end-len(kept):end], dir, kept)
			}
		})
	}
	var m map[string]indexEntry
	if len(parts) > 1 {
		// Nested roots would list a file twice: the map keeps one.
		m = make(map[string]indexEntry)
		for _, p := range parts {
			for _, e := range p {
				m[e.abs] = e
			}
		}
	}
	ix.mu.Lock()
	ix.entries, ix.flat, ix.sorted = m, nil, false
	if m == nil && len(parts) == 1 {
		ix.flat = parts[0]
	}
	ix.mu.Unlock()
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

// folderEntries builds the entries of one folder's kept children into out (len(kept) long).
// Every string of the folder is a slice of one buffer: "abs/name[/]" holds both the absolute
// path and (as its tail) the relative one; lowered copies follow only where case differs.
func (ix *Index) folderEntries(out []indexEntry, dir string, kept []fs.DirEntry) {
	// The relative prefix comes from Rel once per folder: roots, names and separators are
	// its business.
	first := kept[0].Name()
	firstRel := ix.ws.Rel(filepath.Join(dir, first))
	relPrefix := strings.TrimSuffix(firstRel, first)
	if !strings.HasSuffix(firstRel, first) || !strings.HasPrefix(dir, "/") || strings.HasSuffix(dir, "/") || strings.ContainsRune(relPrefix, '\\') {
		ix.slowEntries(out, dir, kept)
		return
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
	}
}

// slowEntries is folderEntries without the shared buffer, for paths it cannot slice.
func (ix *Index) slowEntries(out []indexEntry, dir string, kept []fs.DirEntry) {
	for i, e := range kept {
		p := filepath.Join(dir, e.Name())
		out[i] = ix.entryFor(p, e.IsDir())
	}
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

func (ix *Index) entryFor(path string, isDir bool) indexEntry {
	rel := ix.ws.Rel(path)
	if isDir {
		rel += "/"
	}
	base := strings.LastIndexByte(strings.TrimSuffix(rel, "/"), '/') + 1
	return indexEntry{abs: path, rel: rel, lower: asciiLower(rel), base: base, isDir: isDir}
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
