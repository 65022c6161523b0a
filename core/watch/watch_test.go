package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// noWatcher skips a test on a machine whose system has no file-system watcher to give, and
// fails it under CI, whose machines all have one: there, no watch means the hub is broken.
func noWatcher(t *testing.T) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal("no file-system watcher, though CI's machines have one")
	}
	t.Skip("no file-system watcher on this machine")
}

// quietAfterClose checks what a closed hub must show: its goroutine has ended, and a change
// in the folder it watched reaches no handler (late counts the calls after Close).
func quietAfterClose(t *testing.T, h *Hub, dir string, late *atomic.Int32) {
	t.Helper()
	select {
	case <-h.done:
	default:
		t.Fatal("Close returned before the hub's goroutine ended")
	}
	if err := os.WriteFile(filepath.Join(dir, "after-close.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := late.Load(); n != 0 {
		t.Errorf("%d handler calls after Close", n)
	}
}

// TestOneWatchPerFolder: two watchers of one folder share one watch, both hear its events,
// and the folder's watch ends with the last of them.
func TestOneWatchPerFolder(t *testing.T) {
	dir := t.TempDir()
	h := New()
	defer func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	heard := [2]chan Event{make(chan Event, 16), make(chan Event, 16)}
	var stops [2]func()
	for i := range stops {
		stop, ok := h.Watch(dir, func(ev Event) { heard[i] <- ev })
		if !ok {
			noWatcher(t)
		}
		stops[i] = stop
	}
	if n := h.Folders(); n != 1 {
		t.Fatalf("Folders = %d after two watches of one folder, want 1", n)
	}
	if n := len(h.w.WatchList()); n != 1 {
		t.Fatalf("fsnotify watches %d paths, want 1", n)
	}
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, ch := range heard {
		select {
		case ev := <-ch:
			if ev.Path != file {
				t.Errorf("watcher %d heard %q, want %q", i, ev.Path, file)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("watcher %d heard nothing", i)
		}
	}
	stops[0]()
	stops[0]() // a second stop does nothing
	if n := h.Folders(); n != 1 {
		t.Fatalf("Folders = %d with one watcher left, want 1", n)
	}
	stops[1]()
	if n := h.Folders(); n != 0 {
		t.Fatalf("Folders = %d after both stopped, want 0", n)
	}
	if n := len(h.w.WatchList()); n != 0 {
		t.Fatalf("fsnotify watches %d paths after both stopped, want 0", n)
	}
	// Watching the folder again hears it again.
	again := make(chan Event, 16)
	stop, ok := h.Watch(dir, func(ev Event) { again <- ev })
	if !ok {
		t.Fatal("a folder watched before cannot be watched again")
	}
	defer stop()
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-again:
	case <-time.After(10 * time.Second):
		t.Fatal("the folder watched again heard nothing")
	}
}

// TestCloseWaits: Close returns once the hub's goroutine has ended; no handler runs after it,
// and nothing is watched any more.
func TestCloseWaits(t *testing.T) {
	dir := t.TempDir()
	h := New()
	var after atomic.Bool
	var late atomic.Int32
	if _, ok := h.Watch(dir, func(Event) {
		if after.Load() {
			late.Add(1)
		}
	}); !ok {
		noWatcher(t)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	after.Store(true)
	quietAfterClose(t, h, dir, &late)
	if _, ok := h.Watch(dir, func(Event) {}); ok {
		t.Error("Watch after Close succeeded")
	}
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestFlushOrdersEvents: once Flush returns, the change made before it has been told; where
// the system cannot order events across folders, Flush says so instead.
func TestFlushOrdersEvents(t *testing.T) {
	dir := t.TempDir()
	h := New()
	defer func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	var heard atomic.Int32
	file := filepath.Join(dir, "a.txt")
	if _, ok := h.Watch(dir, func(ev Event) {
		if ev.Path == file {
			heard.Add(1)
		}
	}); !ok {
		noWatcher(t)
	}
	for i := range 20 {
		before := heard.Load()
		if err := os.WriteFile(file, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		err := h.Flush(context.Background())
		if !ordered {
			if !errors.Is(err, ErrUnordered) {
				t.Fatalf("Flush = %v where events are not ordered, want ErrUnordered", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Flush: %v", err)
		}
		if heard.Load() == before {
			t.Fatalf("write %d: Flush returned before its event was told", i)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(context.Background()); !errors.Is(err, ErrUnordered) {
		t.Errorf("Flush after Close = %v, want ErrUnordered", err)
	}
	if _, err := os.Stat(h.marks); h.marks == "" || !os.IsNotExist(err) {
		t.Errorf("the marks' folder %s is left after Close: %v", h.marks, err)
	}
}

// TestSetWatchesAgain: a set watches each folder once, watches a folder made again after it
// was removed when it is added again, and Close ends its watches.
func TestSetWatchesAgain(t *testing.T) {
	if !ordered {
		t.Skip("checked with Flush, which needs a system that orders its events")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "sub")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := New()
	defer func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	var heard atomic.Int32
	s := h.NewSet(func(ev Event) {
		if filepath.Base(ev.Path) == "f.txt" {
			heard.Add(1)
		}
	})
	if !s.Add(dir) {
		noWatcher(t)
	}
	if !s.Add(dir) {
		t.Fatal("adding a folder the set watches failed")
	}
	if n := h.Folders(); n != 1 {
		t.Fatalf("Folders = %d after adding one folder twice, want 1", n)
	}
	write := func() int32 {
		t.Helper()
		before := heard.Load()
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := h.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		return heard.Load() - before
	}
	if write() == 0 {
		t.Fatal("a change in the set's folder was not told")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !s.Add(dir) {
		t.Fatal("the folder made again could not be added")
	}
	if write() == 0 {
		t.Fatal("a change in the folder made again was not told")
	}
	s.Close()
	if n := h.Folders(); n != 0 {
		t.Fatalf("Folders = %d after the set closed, want 0", n)
	}
	if write() != 0 {
		t.Fatal("a change was told after the set closed")
	}
}

// TestCloseBoundsTheSystemsClose: where the system's watcher never closes (fsnotify's reader
// on Windows can miss the request), Close still returns after its wait, with the hub's
// goroutine ended and no handler called after it.
func TestCloseBoundsTheSystemsClose(t *testing.T) {
	dir := t.TempDir()
	h := New()
	if h.w == nil {
		noWatcher(t)
	}
	var after atomic.Bool
	var late atomic.Int32
	if _, ok := h.Watch(dir, func(Event) {
		if after.Load() {
			late.Add(1)
		}
	}); !ok {
		noWatcher(t)
	}
	release := make(chan struct{})
	w := h.w
	t.Cleanup(func() {
		close(release)
		if err := w.Close(); err != nil {
			t.Errorf("closing the watcher afterwards: %v", err)
		}
	})
	h.closeW = func() error { <-release; return nil } // a Close that hangs
	h.closeWait = 100 * time.Millisecond
	start := time.Now()
	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	after.Store(true)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a wait of 100ms", d)
	}
	quietAfterClose(t, h, dir, &late)
}
