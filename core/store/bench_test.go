package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// fill writes a task of n messages shaped like a real one: streamed text, tool asks with a
// diff, request rows, and one API message per four UI messages. The records are written in one
// go (the loop would sync every completed one) and the task is then opened like a restart.
func fill(tb testing.TB, s *Store, id string, n int) *Log {
	tb.Helper()
	now := time.Now()
	l, err := s.Create(Meta{ID: id, Title: "long task", Created: now, Updated: now})
	if err != nil {
		tb.Fatal(err)
	}
	mustClose(tb, l)
	var msgs, api []byte
	for i := range n {
		w, err := fromMsg(sample(i, now))
		if err != nil {
			tb.Fatal(err)
		}
		line, err := encodeRecord(w)
		if err != nil {
			tb.Fatal(err)
		}
		msgs = append(msgs, line...)
		if i%4 == 3 {
			line, err := encodeRecord(apiRecord{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(strings.Repeat("reply ", 40))}}})
			if err != nil {
				tb.Fatal(err)
			}
			api = append(api, line...)
		}
	}
	dir := filepath.Join(s.dir, id)
	if err := os.WriteFile(filepath.Join(dir, messagesFile), msgs, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, apiFile), api, 0o600); err != nil {
		tb.Fatal(err)
	}
	loaded, err := s.Load(id)
	if err != nil || len(loaded.Messages) != n {
		tb.Fatalf("fill: %v", err)
	}
	return loaded.Log
}

func sample(i int, now time.Time) msg.Message {
	m := msg.Message{Index: i, Time: now, Type: msg.Say, Kind: msg.SayText,
		Text: fmt.Sprintf("message %d: %s", i, strings.Repeat("words ", 30))}
	switch i % 4 {
	case 1:
		m.Kind, m.Payload = msg.SayAPIReqStarted, &msg.APIRequest{TokensIn: 1200, TokensOut: 80, Cost: 0.001, Done: true}
		m.Text = ""
	case 2:
		m.Type, m.Kind = msg.Ask, msg.AskTool
		m.Payload = &msg.Tool{Op: msg.OpEditedExistingFile, Path: "src/app.go", Diff: "@@ -1,3 +1,3 @@\n-old line\n+new line\n"}
	}
	return m
}

// appendCost is how many bytes the log writes to add one message to a task of n messages (the
// same message whatever n).
func appendCost(tb testing.TB, s *Store, n int) int64 {
	tb.Helper()
	l := fill(tb, s, fmt.Sprintf("t%d", n), n)
	defer mustClose(tb, l)
	before := l.Written()
	// One fixed time: a timestamp's encoding drops trailing zeros, so two clock readings could
	// differ in length and make equal costs look unequal.
	m := sample(0, time.Date(2026, 11, 26, 12, 0, 0, 123456789, time.UTC))
	m.Index = n
	if err := l.AppendMessage(m, true); err != nil {
		tb.Fatal(err)
	}
	return l.Written() - before
}

// TestAppendCostDoesNotGrowWithTheTask: adding a message writes the same bytes to a task of
// 10 messages as to one of 10,000 (but for the longer index), since appending never rewrites
// what is on disk (the
// persistence promise behind `make bench`'s store figures).
func TestAppendCostDoesNotGrowWithTheTask(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	small, large := appendCost(t, s, 10), appendCost(t, s, 10_000)
	// The record holds the message's index: 10,000 has three more digits than 10.
	if small == 0 || large != small+3 {
		t.Fatalf("bytes written to add one message: %d at 10 messages, %d at 10,000; want the same but for the index's 3 digits", small, large)
	}
}

// BenchmarkStore is the persistence figure of `make bench`: open (Load) a 10,000-message task
// (target < 1 s) and list the history, per operation; it also reports the bytes one message
// costs at 10 and at 10,000 messages, which must be equal but for the index's digits (TestAppendCostDoesNotGrowWithTheTask
// checks it in `make test`).
func BenchmarkStore(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	small, large := appendCost(b, s, 10), appendCost(b, s, 10_000)
	if large != small+3 {
		b.Fatalf("bytes to add one message: %d at 10 messages, %d at 10,000", small, large)
	}
	b.Run("open_10000", func(b *testing.B) {
		var loaded *Loaded
		for b.Loop() {
			loaded, err = s.Load("t10000")
			if err != nil {
				b.Fatal(err)
			}
			mustClose(b, loaded.Log)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
		b.ReportMetric(float64(len(loaded.Messages)), "messages")
		b.ReportMetric(float64(len(loaded.API)), "api-messages")
	})
	b.Run("list", func(b *testing.B) {
		var list []Meta
		for b.Loop() {
			if list, err = s.List(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(list)), "tasks")
		b.ReportMetric(float64(list[0].SizeBytes+list[1].SizeBytes)/1e6, "MB-on-disk")
	})
	b.Run("append_synced_at_10", func(b *testing.B) {
		loaded, err := s.Load("t10")
		if err != nil {
			b.Fatal(err)
		}
		defer mustClose(b, loaded.Log)
		m := sample(0, time.Now())
		m.Index = len(loaded.Messages)
		before := loaded.Log.Written()
		for b.Loop() {
			if err := loaded.Log.AppendMessage(m, true); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(loaded.Log.Written()-before)/float64(b.N), "bytes/op")
		b.ReportMetric(float64(small), "bytes-at-10")
		b.ReportMetric(float64(large), "bytes-at-10000")
	})
}
