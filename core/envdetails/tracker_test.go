package envdetails

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/cairnhq/cairn/core/watch"
)

// newTracker returns a Tracker over a hub of its own, both closed when the test ends; a failed
// Close fails it.
func newTracker(tb testing.TB) *Tracker {
	tb.Helper()
	return newTrackerOn(tb, newHub(tb))
}

// newHub returns a watch hub closed when the test ends.
func newHub(tb testing.TB) *watch.Hub {
	tb.Helper()
	hub := watch.New()
	tb.Cleanup(func() {
		if err := hub.Close(); err != nil {
			tb.Errorf("Hub.Close: %v", err)
		}
	})
	return hub
}

// newTrackerOn returns a Tracker over hub, closed when the test ends.
func newTrackerOn(tb testing.TB, hub *watch.Hub) *Tracker {
	tb.Helper()
	tr := NewTracker(hub)
	tb.Cleanup(func() {
		if err := tr.Close(); err != nil {
			tb.Errorf("Tracker.Close: %v", err)
		}
	})
	return tr
}

// TestTrackersShareOneWatchPerFolder: two tasks reading files of one folder draw on one watch
// of the daemon's hub, which ends when the last of them closes.
func TestTrackersShareOneWatchPerFolder(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "v1\n", "b.go": "v1\n"})
	hub := newHub(t)
	one, two := NewTracker(hub), NewTracker(hub)
	one.Files([]string{filepath.Join(dir, "a.go")}, nil)
	two.Files([]string{filepath.Join(dir, "b.go")}, nil)
	if n := hub.Folders(); n != 1 {
		t.Fatalf("hub watches %d folders, want 1", n)
	}
	if err := one.Close(); err != nil {
		t.Fatal(err)
	}
	if n := hub.Folders(); n != 1 {
		t.Fatalf("after one tracker closed, hub watches %d folders, want 1", n)
	}
	if err := two.Close(); err != nil {
		t.Fatal(err)
	}
	if n := hub.Folders(); n != 0 {
		t.Fatalf("after both closed, hub watches %d folders, want 0", n)
	}
}

// TestTrackerReportsOthersChangesOnce follows one task: the agent reads a file and edits
// another, someone else changes the first, the agent changes the second itself.
func TestTrackerReportsOthersChangesOnce(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"read.go": "v1\n", "edited.go": "v1\n", "untracked.go": "v1\n"})
	read, edited := filepath.Join(dir, "read.go"), filepath.Join(dir, "edited.go")
	tr := newTracker(t)
	tr.Files([]string{read}, nil)
	tr.Files([]string{edited}, []string{edited})
	if len(tr.dirs) == 0 {
		t.Fatal("no fsnotify watcher on this machine; the polling test covers that case")
	}

	// others is someone else writing path; self is the agent's edit, reported after the write
	// the way the task reports a tool's result.
	others := func(path, content string) {
		t.Helper()
		ch := tr.changed()
		writeTree(t, dir, map[string]string{filepath.Base(path): content})
		waitEvent(t, ch)
	}
	self := func(path, content string) {
		t.Helper()
		others(path, content)
		tr.Files([]string{path}, []string{path})
	}
	atomic := func(path, content string) {
		t.Helper()
		ch := tr.changed()
		tmp := filepath.Join(dir, ".tmp-write")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		waitEvent(t, ch)
	}

	steps := []struct {
		name string
		act  func()
		want []string
	}{
		{"someone else edits the read file, the agent edits its own", func() {
			others(read, "v2\n")
			self(edited, "v2 by the agent\n")
		}, []string{read}},
		{"reported once", func() {}, nil},
		{"an untracked file changes", func() { writeTree(t, dir, map[string]string{"untracked.go": "v2\n"}) }, nil},
		{"same content written again", func() { others(read, "v2\n") }, nil},
		{"changed, then the agent reads it before the turn", func() {
			others(read, "v3\n")
			tr.Files([]string{read}, nil)
		}, nil},
		{"replaced by an atomic rename (editors save this way)", func() { atomic(read, "v4\n") }, []string{read}},
		{"the watch survived the rename", func() { others(read, "v5\n") }, []string{read}},
		{"the agent's edited file changed by someone else", func() { others(edited, "v3 by the user\n") }, []string{edited}},
		{"deleted", func() {
			ch := tr.changed()
			_ = os.Remove(edited)
			writeTree(t, dir, map[string]string{"read.go": "v6\n"}) // an event the test can wait for
			waitEvent(t, ch)
		}, []string{read}},
	}
	for _, s := range steps {
		s.act()
		if got := tr.Take(); !slices.Equal(got, s.want) {
			t.Fatalf("%s: Take = %q, want %q", s.name, got, s.want)
		}
	}
}

// TestTrackerPollsWithoutWatcher covers folders that cannot be watched (no inotify instances
// left): their files are compared on every Take.
func TestTrackerPollsWithoutWatcher(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "v1\n"})
	a := filepath.Join(dir, "a.go")
	tr := NewTracker(nil) // as if the daemon had no watcher
	tr.Files([]string{a}, nil)
	if r := tr.files[a]; r == nil || !r.polled {
		t.Fatalf("record = %+v, want a polled record", r)
	}
	if got := tr.Take(); got != nil {
		t.Fatalf("Take before a change = %q", got)
	}
	writeTree(t, dir, map[string]string{"a.go": "v2, longer\n"})
	if got := tr.Take(); !slices.Equal(got, []string{a}) {
		t.Fatalf("Take after a change = %q", got)
	}
	if got := tr.Take(); got != nil {
		t.Fatalf("second Take = %q, want nothing", got)
	}
}

func TestTrackerIgnoresFoldersAndRelativePaths(t *testing.T) {
	dir := t.TempDir()
	tr := newTracker(t)
	tr.Files([]string{dir, "relative.go"}, nil)
	if len(tr.files) != 0 || len(tr.dirs) != 0 {
		t.Errorf("tracked %v (watched %v), want nothing and no watch", tr.files, tr.dirs)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// BenchmarkTakeUnchanged is the per-turn cost of the tracker for a task that has seen 1000
// files, none changed: one stat each.
func BenchmarkTakeUnchanged(b *testing.B) {
	dir := b.TempDir()
	var paths []string
	for i := range 1000 {
		p := filepath.Join(dir, "f"+strconv.Itoa(i)+".go")
		if err := os.WriteFile(p, []byte("package f\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	tr := newTracker(b)
	tr.Files(paths, nil)
	for b.Loop() {
		if got := tr.Take(); got != nil {
			b.Fatalf("Take = %q", got)
		}
	}
}
