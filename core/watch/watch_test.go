package watch

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

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
			t.Skip("no file-system watcher on this machine")
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
		t.Skip("no file-system watcher on this machine")
	}
	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	after.Store(true)
	select {
	case <-h.done:
	default:
		t.Fatal("Close returned before the hub's goroutine ended")
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := late.Load(); n != 0 {
		t.Errorf("%d handler calls after Close", n)
	}
	if _, ok := h.Watch(dir, func(Event) {}); ok {
		t.Error("Watch after Close succeeded")
	}
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
