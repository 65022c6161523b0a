package store

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// mustClose closes c and fails the test when that reports an error.
func mustClose(tb testing.TB, c io.Closer) {
	tb.Helper()
	if err := c.Close(); err != nil {
		tb.Errorf("close: %v", err)
	}
}

func TestAppendReloadAndTornTail(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create(Meta{ID: "t1", Title: "hello", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.AppendMessage(msg.Message{Index: 0, Type: msg.Say, Kind: msg.SayTask, Text: "do it"}, true))
	must(l.AppendMessage(msg.Message{Index: 1, Type: msg.Say, Kind: msg.SayText, Text: "par", Partial: true}, false))
	must(l.AppendMessage(msg.Message{Index: 1, Type: msg.Say, Kind: msg.SayText, Text: "partial done"}, true))
	must(l.AppendMessage(msg.Message{Index: 2, Type: msg.Ask, Kind: msg.AskTool,
		Payload: &msg.Tool{Op: msg.OpNewFileCreated, Path: "a.txt", Content: "x"}}, true))
	must(l.AppendAPI(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>do it</task>")}}))
	must(l.AppendAPI(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("ok")}}))
	must(l.Close())

	// A torn write: half a record at the end of each log.
	dir := filepath.Join(s.dir, "t1")
	for _, name := range []string{messagesFile, apiFile} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND, 0)
		must(err)
		_, err = f.WriteString(`0000abcd {"i":3,"y":"say"`)
		must(err)
		must(f.Close())
	}

	got, err := s.Load("t1")
	must(err)
	defer mustClose(t, got.Log)
	if len(got.Messages) != 3 || got.Messages[1].Text != "partial done" || got.Messages[1].Partial {
		t.Fatalf("messages = %+v", got.Messages)
	}
	if tool, ok := got.Messages[2].Payload.(*msg.Tool); !ok || tool.Path != "a.txt" {
		t.Fatalf("payload = %#v", got.Messages[2].Payload)
	}
	if len(got.API) != 2 || got.API[1].Content[0].Text != "ok" {
		t.Fatalf("api = %+v", got.API)
	}
	if got.Dropped != 2 {
		t.Fatalf("dropped = %d, want 2", got.Dropped)
	}
	if got.Meta.Title != "hello" {
		t.Fatalf("meta = %+v", got.Meta)
	}
	list, err := s.List()
	must(err)
	if len(list) != 1 || list[0].SizeBytes == 0 {
		t.Fatalf("list = %+v", list)
	}
}

func TestBadIDs(t *testing.T) {
	s, _ := Open(t.TempDir())
	for _, id := range []string{"", "..", "a/b"} {
		if _, err := s.Load(id); err == nil {
			t.Errorf("Load(%q) succeeded", id)
		}
	}
}

// TestDamagedLogs covers what a kill or a bad disk leaves behind: reading keeps every record
// before the first bad one and counts the rest as dropped.
func TestDamagedLogs(t *testing.T) {
	rec := func(i int, text string) string {
		line, err := encodeRecord(wireMessage{Index: i, Type: msg.Say, Kind: msg.SayText, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	good := rec(0, "zero") + rec(1, "one")
	cases := []struct {
		name      string
		tail      string
		wantMsgs  int
		wantDrops int
	}{
		{"clean", "", 2, 0},
		{"torn half record", rec(2, "two")[:20], 2, 1},
		{"no final newline", strings.TrimSuffix(rec(2, "two"), "\n"), 2, 1},
		{"bad checksum", "00000000" + rec(2, "two")[8:], 2, 1},
		{"zeros from a crash", strings.Repeat("\x00", 64), 2, 1},
		{"bad record then good ones", "garbage\n" + rec(2, "two") + rec(3, "three"), 2, 3},
		{"index gap", rec(5, "five"), 2, 1},
		{"valid tail", rec(2, "two"), 3, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			l, err := s.Create(Meta{ID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			mustClose(t, l)
			if err := os.WriteFile(filepath.Join(s.dir, "t", messagesFile), []byte(good+c.tail), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load("t")
			if err != nil {
				t.Fatal(err)
			}
			defer mustClose(t, got.Log)
			if len(got.Messages) != c.wantMsgs || got.Dropped != c.wantDrops {
				t.Fatalf("messages=%d dropped=%d, want %d and %d", len(got.Messages), got.Dropped, c.wantMsgs, c.wantDrops)
			}
			// The torn tail was cut off: what is appended now survives the next open.
			if err := got.Log.AppendMessage(msg.Message{Index: c.wantMsgs, Type: msg.Say, Kind: msg.SayText, Text: "next"}, true); err != nil {
				t.Fatal(err)
			}
			mustClose(t, got.Log) // a loaded task is locked until its log is closed
			again, err := s.Load("t")
			if err != nil {
				t.Fatal(err)
			}
			defer mustClose(t, again.Log)
			if n := len(again.Messages); n != c.wantMsgs+1 || again.Messages[n-1].Text != "next" || again.Dropped != 0 {
				t.Fatalf("after append: %d messages, dropped %d", n, again.Dropped)
			}
		})
	}
}

func TestHistoryIndex(t *testing.T) {
	dataDir := t.TempDir()
	s, err := Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		l, err := s.Create(Meta{ID: id, Title: "task " + id, Updated: base.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		mustClose(t, l)
	}
	index := filepath.Join(s.dir, indexFile)
	titles := func(st *Store) (string, ListStats) {
		t.Helper()
		list, stats, err := st.ListWithStats()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, m := range list {
			b.WriteString(m.ID + "=" + m.Title + " ")
		}
		return strings.TrimSpace(b.String()), stats
	}
	fresh := func() *Store {
		st, err := Open(dataDir)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	if got, st := titles(s); got != "c=task c b=task b a=task a" || !st.Rebuilt || st.Refreshed != 3 {
		t.Fatalf("first list: %q %+v", got, st)
	}
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("index not written: %v", err)
	}
	// Another process (a fresh store) reads the index instead of every meta.json.
	if _, st := titles(fresh()); st.Rebuilt || st.Refreshed != 0 {
		t.Fatalf("second process: %+v", st)
	}

	t.Run("meta changed elsewhere is refreshed", func(t *testing.T) {
		other := fresh()
		if err := other.UpdateMeta("a", func(m *Meta) { m.Title = "renamed" }); err != nil {
			t.Fatal(err)
		}
		if got, st := titles(s); got != "c=task c b=task b a=renamed" || st.Refreshed != 1 {
			t.Fatalf("after rename: %q %+v", got, st)
		}
	})
	t.Run("deleted folder leaves the index", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(s.dir, "b")); err != nil {
			t.Fatal(err)
		}
		if got, st := titles(s); got != "c=task c a=renamed" || st.Removed != 1 {
			t.Fatalf("after delete: %q %+v", got, st)
		}
		if _, st := titles(fresh()); st.Rebuilt || st.Refreshed != 0 || st.Removed != 0 {
			t.Fatalf("the saved index is stale: %+v", st)
		}
	})
	for name, damage := range map[string]func() error{
		"missing":       func() error { return os.Remove(index) },
		"corrupt":       func() error { return os.WriteFile(index, []byte(`{"version":1,"tasks":[{"meta":`), 0o600) },
		"other version": func() error { return os.WriteFile(index, []byte(`{"version":99,"tasks":[]}`), 0o600) },
	} {
		t.Run(name+" index is rebuilt", func(t *testing.T) {
			if err := damage(); err != nil {
				t.Fatal(err)
			}
			if got, st := titles(fresh()); got != "c=task c a=renamed" || !st.Rebuilt || st.Refreshed != 2 {
				t.Fatalf("rebuild: %q %+v", got, st)
			}
			if _, st := titles(fresh()); st.Rebuilt {
				t.Fatalf("the rebuilt index was not saved: %+v", st)
			}
		})
	}
	t.Run("a folder without metadata is not a task", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(s.dir, "half-made"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.dir, "bad", metaFile), []byte("{"), 0o600); err == nil {
			t.Fatal("setup")
		}
		if got, _ := titles(fresh()); got != "c=task c a=renamed" {
			t.Fatalf("list = %q", got)
		}
	})
}

func TestStaleResumeAskCut(t *testing.T) {
	s, _ := Open(t.TempDir())
	l, err := s.Create(Meta{ID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []msg.Kind{msg.SayTask, msg.AskResumeTask} {
		typ := msg.Say
		if i == 1 {
			typ = msg.Ask
		}
		if err := l.AppendMessage(msg.Message{Index: i, Type: typ, Kind: k}, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.TruncateMessages(1); err != nil {
		t.Fatal(err)
	}
	mustClose(t, l)
	got, err := s.Load("t")
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, got.Log)
	if len(got.Messages) != 1 || got.Dropped != 0 {
		t.Fatalf("messages = %+v, dropped %d", got.Messages, got.Dropped)
	}
}

// TestIndexTempsGoAtFirstList: an index write a kill cut short leaves a temporary file in the
// tasks folder. Open leaves it (a start reads nothing of the folder), the first List removes
// it, and a temporary file still young enough to be another process's write under way stays.
func TestIndexTempsGoAtFirstList(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "tasks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale, fresh := filepath.Join(dir, ".tmp-111"), filepath.Join(dir, ".tmp-222")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte(`{"version":1`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("Open touched the tasks folder: %v", err)
	}
	l, err := s.Create(Meta{ID: "t1", Title: "one", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, l)
	metas, err := s.List()
	if err != nil || len(metas) != 1 || metas[0].ID != "t1" {
		t.Fatalf("List = %+v, %v; want the one task", metas, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there after the first List (stat: %v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary file (another process's write) was removed: %v", err)
	}
}

// TestOpenWritesNothing: opening a data dir creates nothing in it (a daemon's start creates
// no file it does not need); a history with no task lists empty, and the first task creates
// the folder.
func TestOpenWritesNothing(t *testing.T) {
	data := t.TempDir()
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(data); err != nil || len(ents) != 0 {
		t.Fatalf("Open left %v in the data dir (%v); want nothing", ents, err)
	}
	if metas, err := s.List(); err != nil || len(metas) != 0 {
		t.Fatalf("List = %v, %v; want no task", metas, err)
	}
	l, err := s.Create(Meta{ID: "t1", Title: "one", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, l)
	if metas, err := s.List(); err != nil || len(metas) != 1 {
		t.Fatalf("List = %v, %v; want the one task", metas, err)
	}
	fi, err := os.Stat(filepath.Join(data, "tasks"))
	if err != nil || !fi.IsDir() {
		t.Fatalf("tasks folder: %v, %v; want it made by the first task", fi, err)
	}
	// Windows has no mode bits to check.
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("tasks folder mode %v, want 0700", fi.Mode().Perm())
	}
}
