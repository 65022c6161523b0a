package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// WalkFunc is called for every entry a walk keeps, from several goroutines at once, in no
// fixed order (folders are taken roughly in path order: see readDir). path is absolute; parent
// is the filter of the entry's folder. Returning fs.SkipDir for a folder prunes it; any other
// error stops the walk and is returned.
type WalkFunc func(path string, d fs.DirEntry, parent *Filter) error

// Walk visits dir's tree in parallel with the given rules. Symlinks are reported but never
// followed (ripgrep's default), so a link cannot lead the walk out of the workspace or into a
// cycle. Unreadable folders are skipped. workers ≤ 0 means GOMAXPROCS.
func (ws *Workspace) Walk(ctx context.Context, dir string, opts FilterOptions, workers int, fn WalkFunc) error {
	return walkFrom(ctx, ws.NewFilter(dir, opts), workers, fn)
}

type walker struct {
	fn WalkFunc
	// mu guards stack, pending and err; cond signals new work or the end.
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []*Filter
	pending int // folders pushed but not finished
	err     error
}

func walkFrom(ctx context.Context, root *Filter, workers int, fn WalkFunc) error {
	return (&walker{fn: fn}).run(ctx, root, workers)
}

func (w *walker) run(ctx context.Context, root *Filter, workers int) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	w.stack, w.pending = []*Filter{root}, 1
	w.cond = sync.NewCond(&w.mu)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { w.work(ctx) })
	}
	wg.Wait()
	if w.err != nil {
		return w.err
	}
	return ctx.Err()
}

func (w *walker) work(ctx context.Context) {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 && w.err == nil {
			w.cond.Wait()
		}
		if w.err != nil || w.pending == 0 {
			w.mu.Unlock()
			return
		}
		f := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		err := ctx.Err()
		if err == nil {
			err = w.readDir(f)
		}

		w.mu.Lock()
		w.pending--
		if err != nil && w.err == nil {
			w.err = err
		}
		if w.pending == 0 || w.err != nil {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

func (w *walker) readDir(f *Filter) error {
	d, err := os.Open(f.dir)
	if err != nil {
		return nil // vanished or unreadable: skipped, as ripgrep does after a warning
	}
	// Unsorted: callers that need an order sort what they keep, which is cheaper.
	entries, _ := d.ReadDir(-1)
	closeReadOnly(d)
	var subdirs []*Filter
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		if f.Skip(name, isDir) {
			continue
		}
		err := w.fn(filepath.Join(f.dir, name), e, f)
		if errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if isDir {
			subdirs = append(subdirs, f.Child(name))
		}
	}
	// Pushed in reverse name order, folders are taken in name order, so a walk runs roughly
	// in path order: a caller that only needs the first results by path (search_files) can
	// stop walking the rest early.
	slices.SortFunc(subdirs, func(a, b *Filter) int { return strings.Compare(b.dir, a.dir) })
	w.push(subdirs)
	return nil
}

func (w *walker) push(subdirs []*Filter) {
	if len(subdirs) > 0 {
		w.mu.Lock()
		w.stack = append(w.stack, subdirs...)
		w.pending += len(subdirs)
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}
