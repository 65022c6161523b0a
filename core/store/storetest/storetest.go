// Package storetest is the conformance suite of task stores (docs/conventions.md, "Tests are
// data"): the file store and the in-memory one must behave alike for everything the task loop and
// the history RPCs rely on — messages folded by index, API history with truncation, metadata
// replaced whole, history newest first with sizes, favourites, deletion, and refusal of bad ids and
// gaps.
package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/store/memstore"
)

// Store is the contract under test.
type Store interface {
	Create(meta store.Meta) (Log, error)
	// Load reads a task back and opens it for appending; unknown ids wrap store.ErrNotFound.
	Load(id string) (Loaded, error)
	List() ([]store.Meta, error)
	Delete(ids ...string) error
	UpdateMeta(id string, fn func(*store.Meta)) error
}

// Log appends to one task. AppendMessage with an index past the end wraps store.ErrBadRecord.
type Log interface {
	AppendMessage(m msg.Message, sync bool) error
	TruncateMessages(n int) error
	AppendAPI(m llm.Message) error
	TruncateAPI(n int) error
	SaveMeta(m store.Meta) error
	Close() error
}

// Loaded is a task read back.
type Loaded struct {
	Meta     store.Meta
	Messages []msg.Message
	API      []llm.Message
	Log      Log
}

// Files adapts the file store.
func Files(s *store.Store) Store { return files{s} }

type files struct{ s *store.Store }

func (f files) Create(m store.Meta) (Log, error) {
	l, err := f.s.Create(m)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (f files) Load(id string) (Loaded, error) {
	l, err := f.s.Load(id)
	if err != nil {
		return Loaded{}, err
	}
	return Loaded{Meta: l.Meta, Messages: l.Messages, API: l.API, Log: l.Log}, nil
}

func (f files) List() ([]store.Meta, error)                      { return f.s.List() }
func (f files) Delete(ids ...string) error                       { return f.s.Delete(ids...) }
func (f files) UpdateMeta(id string, fn func(*store.Meta)) error { return f.s.UpdateMeta(id, fn) }

// Memory adapts the in-memory store.
func Memory(s *memstore.Store) Store { return memory{s} }

type memory struct{ s *memstore.Store }

func (m memory) Create(meta store.Meta) (Log, error) {
	l, err := m.s.Create(meta)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (m memory) Load(id string) (Loaded, error) {
	l, err := m.s.Load(id)
	if err != nil {
		return Loaded{}, err
	}
	return Loaded{Meta: l.Meta, Messages: l.Messages, API: l.API, Log: l.Log}, nil
}

func (m memory) List() ([]store.Meta, error)                      { return m.s.List() }
func (m memory) Delete(ids ...string) error                       { return m.s.Delete(ids...) }
func (m memory) UpdateMeta(id string, fn func(*store.Meta)) error { return m.s.UpdateMeta(id, fn) }

// Run runs the suite; open returns a new empty store for each case.
func Run(t *testing.T, open func(t *testing.T) Store) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s Store)
	}{
		{"RoundTripEveryPayload", roundTrip},
		{"PartialFoldedByIndex", partialFolded},
		{"ReopenAndAppend", reopenAndAppend},
		{"GapRefused", gapRefused},
		{"TruncateMessages", truncateMessages},
		{"APIHistoryAndTruncate", apiHistory},
		{"MetaReplacedWhole", metaReplaced},
		{"ListNewestFirstWithSize", listNewestFirst},
		{"FavoriteWithoutLoading", favorite},
		{"DeleteOneManyAll", deleteTasks},
		{"BadIDs", badIDs},
		{"ClosedLogRefuses", closedLog},
		{"ConcurrentTasks", concurrent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func meta(id string, minutes int) store.Meta {
	at := epoch.Add(time.Duration(minutes) * time.Minute)
	return store.Meta{ID: id, Title: "task " + id, Workspace: []string{"/ws/" + id}, Model: "m", Mode: "act",
		Created: at, Updated: at}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, s Store, m store.Meta) Log {
	t.Helper()
	l, err := s.Create(m)
	must(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func load(t *testing.T, s Store, id string) Loaded {
	t.Helper()
	l, err := s.Load(id)
	must(t, err)
	t.Cleanup(func() { _ = l.Log.Close() })
	return l
}

// samples has one message of every payload type, and images and files.
func samples() []msg.Message {
	code := 2
	ps := []msg.Payload{
		nil,
		&msg.Tool{Op: msg.OpEditedExistingFile, Path: "a.go", Diff: "@@ -1 +1 @@\n-a\n+b\n", Outside: true},
		&msg.Command{Command: "go test ./...", RequiresApproval: true},
		&msg.CommandOutput{Output: "ok\n", ExitCode: &code},
		&msg.Followup{Question: "which?", Options: []string{"a", "b"}, Selected: "b"},
		&msg.Completion{Result: "done", Command: "open index.html"},
		&msg.APIRequest{TokensIn: 10, TokensOut: 5, CacheReads: 2, Cost: 0.25, Done: true},
		&msg.Retry{Attempt: 1, MaxAttempt: 3, DelaySec: 2, Error: "429"},
		&msg.NewTask{},
		&msg.Browser{},
		&msg.MCP{},
		&msg.Checkpoint{},
		&msg.Progress{},
	}
	out := make([]msg.Message, 0, len(ps))
	for i, p := range ps {
		m := msg.Message{Index: i, Time: epoch.Add(time.Duration(i) * time.Second), Type: msg.Say, Kind: msg.SayText,
			Text: fmt.Sprintf("message %d ✓", i), Payload: p}
		if i == 0 {
			m.Kind, m.Images, m.Files = msg.SayTask, []string{"data:image/png;base64,AAAA"}, []string{"/ws/x.go"}
		}
		if i%2 == 1 {
			m.Type, m.Kind = msg.Ask, msg.AskTool
		}
		out = append(out, m)
	}
	return out
}

func roundTrip(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	want := samples()
	for _, m := range want {
		must(t, l.AppendMessage(m, true))
	}
	must(t, l.Close())
	got := load(t, s, "t1")
	if !reflect.DeepEqual(got.Messages, want) {
		t.Fatalf("messages differ:\n got %#v\nwant %#v", got.Messages, want)
	}
	// What was read back is a copy: changing it does not change the store.
	got.Messages[1].Payload.(*msg.Tool).Path = "changed"
	must(t, got.Log.Close()) // a loaded task is locked until its log is closed
	again := load(t, s, "t1")
	if again.Messages[1].Payload.(*msg.Tool).Path != "a.go" {
		t.Fatal("a loaded message shares memory with the store")
	}
}

func partialFolded(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	must(t, l.AppendMessage(msg.Message{Index: 0, Time: epoch, Type: msg.Say, Kind: msg.SayTask, Text: "go"}, true))
	for i, text := range []string{"He", "Hello wor", "Hello world"} {
		must(t, l.AppendMessage(msg.Message{Index: 1, Time: epoch, Type: msg.Say, Kind: msg.SayText, Text: text, Partial: i < 2}, i == 2))
	}
	must(t, l.AppendMessage(msg.Message{Index: 2, Time: epoch, Type: msg.Ask, Kind: msg.AskCompletionResult}, true))
	must(t, l.Close())
	got := load(t, s, "t1")
	if len(got.Messages) != 3 || got.Messages[1].Text != "Hello world" || got.Messages[1].Partial {
		t.Fatalf("messages = %+v", got.Messages)
	}
}

func reopenAndAppend(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	must(t, l.AppendMessage(msg.Message{Index: 0, Time: epoch, Type: msg.Say, Kind: msg.SayTask, Text: "a"}, true))
	must(t, l.Close())
	got := load(t, s, "t1")
	must(t, got.Log.AppendMessage(msg.Message{Index: 1, Time: epoch, Type: msg.Say, Kind: msg.SayText, Text: "b"}, true))
	must(t, got.Log.AppendMessage(msg.Message{Index: 0, Time: epoch, Type: msg.Say, Kind: msg.SayTask, Text: "a2"}, true))
	must(t, got.Log.Close())
	again := load(t, s, "t1")
	if len(again.Messages) != 2 || again.Messages[0].Text != "a2" || again.Messages[1].Text != "b" {
		t.Fatalf("messages = %+v", again.Messages)
	}
}

func gapRefused(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	must(t, l.AppendMessage(msg.Message{Index: 0, Time: epoch, Type: msg.Say, Kind: msg.SayTask, Text: "a"}, true))
	if err := l.AppendMessage(msg.Message{Index: 5, Time: epoch, Type: msg.Say, Kind: msg.SayText}, true); !errors.Is(err, store.ErrBadRecord) {
		t.Fatalf("a gap: err = %v, want ErrBadRecord", err)
	}
	// The refused record did not break the log.
	must(t, l.AppendMessage(msg.Message{Index: 1, Time: epoch, Type: msg.Say, Kind: msg.SayText, Text: "b"}, true))
	must(t, l.Close())
	if got := load(t, s, "t1"); len(got.Messages) != 2 {
		t.Fatalf("messages = %+v", got.Messages)
	}
}

func truncateMessages(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	for i := range 4 {
		must(t, l.AppendMessage(msg.Message{Index: i, Time: epoch, Type: msg.Say, Kind: msg.SayText, Text: fmt.Sprint(i)}, true))
	}
	must(t, l.TruncateMessages(2))
	if err := l.TruncateMessages(3); !errors.Is(err, store.ErrBadRecord) {
		t.Fatalf("cut past the end: err = %v", err)
	}
	must(t, l.AppendMessage(msg.Message{Index: 2, Time: epoch, Type: msg.Ask, Kind: msg.AskResumeTask}, true))
	must(t, l.Close())
	got := load(t, s, "t1")
	if len(got.Messages) != 3 || got.Messages[1].Text != "1" || got.Messages[2].Kind != msg.AskResumeTask {
		t.Fatalf("messages = %+v", got.Messages)
	}
	// The loaded log knows the count: the next message is 3, not 5.
	if err := got.Log.AppendMessage(msg.Message{Index: 4, Time: epoch, Type: msg.Say, Kind: msg.SayText}, true); !errors.Is(err, store.ErrBadRecord) {
		t.Fatalf("a gap after reload: err = %v", err)
	}
}

func apiHistory(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	user := func(s string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text(s)}}
	}
	must(t, l.AppendAPI(user("one")))
	must(t, l.AppendAPI(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("two"),
		{Type: llm.ContentImage, ImageMediaType: "image/png", ImageData: "AAAA"}}}))
	must(t, l.AppendAPI(user("three")))
	must(t, l.TruncateAPI(2))
	must(t, l.AppendAPI(user("four")))
	must(t, l.Close())
	got := load(t, s, "t1")
	want := []llm.Message{user("one"), {Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("two"),
		{Type: llm.ContentImage, ImageMediaType: "image/png", ImageData: "AAAA"}}}, user("four")}
	if !reflect.DeepEqual(got.API, want) {
		t.Fatalf("api = %+v", got.API)
	}
}

func metaReplaced(t *testing.T, s Store) {
	m := meta("t1", 0)
	l := create(t, s, m)
	m.Title, m.TokensIn, m.TokensOut, m.Cost, m.FocusChain, m.Completed = "renamed", 100, 20, 1.5, "- [ ] x", true
	m.Updated = m.Updated.Add(time.Hour)
	must(t, l.SaveMeta(m))
	must(t, l.Close())
	got := load(t, s, "t1")
	if !reflect.DeepEqual(got.Meta, m) {
		t.Fatalf("meta:\n got %+v\nwant %+v", got.Meta, m)
	}
}

func listNewestFirst(t *testing.T, s Store) {
	for i, id := range []string{"old", "new", "mid"} {
		l := create(t, s, meta(id, []int{0, 20, 10}[i]))
		must(t, l.Close())
	}
	list, err := s.List()
	must(t, err)
	var ids []string
	for _, m := range list {
		ids = append(ids, m.ID)
	}
	if !reflect.DeepEqual(ids, []string{"new", "mid", "old"}) {
		t.Fatalf("order = %v", ids)
	}
	before := list[2].SizeBytes
	got := load(t, s, "old")
	must(t, got.Log.AppendMessage(msg.Message{Index: 0, Time: epoch, Type: msg.Say, Kind: msg.SayTask, Text: "grow"}, true))
	list, err = s.List()
	must(t, err)
	if list[2].ID != "old" || list[2].SizeBytes <= before || before <= 0 {
		t.Fatalf("size of old: %d → %d", before, list[2].SizeBytes)
	}
}

func favorite(t *testing.T, s Store) {
	must(t, create(t, s, meta("t1", 0)).Close())
	must(t, s.UpdateMeta("t1", func(m *store.Meta) { m.Favorite = true }))
	list, err := s.List()
	must(t, err)
	if len(list) != 1 || !list[0].Favorite || list[0].Title != "task t1" {
		t.Fatalf("list = %+v", list)
	}
	if !load(t, s, "t1").Meta.Favorite {
		t.Fatal("favourite lost on load")
	}
	if err := s.UpdateMeta("nope", func(*store.Meta) {}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("UpdateMeta(unknown) = %v", err)
	}
}

func deleteTasks(t *testing.T, s Store) {
	for i, id := range []string{"a", "b", "c", "d"} {
		must(t, create(t, s, meta(id, i)).Close())
	}
	must(t, s.Delete("b"))
	if _, err := s.Load("b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load(deleted) = %v", err)
	}
	must(t, s.Delete("a", "d"))
	list, err := s.List()
	must(t, err)
	if len(list) != 1 || list[0].ID != "c" {
		t.Fatalf("list = %+v", list)
	}
	must(t, s.Delete("c"))
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("list after deleting all = %+v", list)
	}
}

func badIDs(t *testing.T, s Store) {
	for _, id := range []string{"", ".", "..", "a/b", `a\b`} {
		if _, err := s.Load(id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Load(%q) = %v", id, err)
		}
		if err := s.UpdateMeta(id, func(*store.Meta) {}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UpdateMeta(%q) = %v", id, err)
		}
		if _, err := s.Create(store.Meta{ID: id}); err == nil {
			t.Errorf("Create(%q) succeeded", id)
		}
		if err := s.Delete(id); err == nil {
			t.Errorf("Delete(%q) succeeded", id)
		}
	}
	if _, err := s.Load("missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load(missing) = %v", err)
	}
}

func closedLog(t *testing.T, s Store) {
	l := create(t, s, meta("t1", 0))
	must(t, l.Close())
	if err := l.AppendMessage(msg.Message{Index: 0, Type: msg.Say, Kind: msg.SayTask}, true); err == nil {
		t.Fatal("append after close succeeded")
	}
	must(t, l.Close()) // closing twice is harmless
}

func concurrent(t *testing.T, s Store) {
	var wg sync.WaitGroup
	errs := make(chan error, 16) // room for a failed step and a failed Close per writer
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("t%d", w)
			l, err := s.Create(meta(id, w))
			if err != nil {
				errs <- err
				return
			}
			defer func() {
				if err := l.Close(); err != nil {
					errs <- err
				}
			}()
			for i := range 50 {
				if err := l.AppendMessage(msg.Message{Index: i, Time: epoch, Type: msg.Say, Kind: msg.SayText, Text: id}, i%10 == 0); err != nil {
					errs <- err
					return
				}
			}
			if _, err := s.List(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	list, err := s.List()
	must(t, err)
	if len(list) != 8 {
		t.Fatalf("%d tasks", len(list))
	}
	for _, m := range list {
		if got := load(t, s, m.ID); len(got.Messages) != 50 || got.Messages[49].Text != m.ID {
			t.Fatalf("%s: %d messages", m.ID, len(got.Messages))
		}
	}
}
