package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

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
		f.Close()
	}

	got, err := s.Load("t1")
	must(err)
	defer got.Log.Close()
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
