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

// TestStoreReport prints the persistence figures of spec §11 (CAIRN_BENCH=1): opening a
// 10,000-message task, listing history, and the bytes one message costs at 10 and at 10,000
// messages (constant: appending never rewrites the task).
func TestStoreReport(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") == "" {
		t.Skip("set CAIRN_BENCH=1 to print the persistence figures")
	}
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	perMessage := func(n int) int64 {
		l := fill(t, s, fmt.Sprintf("t%d", n), n)
		defer mustClose(t, l)
		before := l.Written()
		m := sample(0, time.Now()) // the same message at both sizes
		m.Index = n
		if err := l.AppendMessage(m, true); err != nil {
			t.Fatal(err)
		}
		return l.Written() - before
	}
	small, large := perMessage(10), perMessage(10_000)
	t.Logf("bytes written to add one message: %d at 10 messages, %d at 10,000", small, large)

	start := time.Now()
	loaded, err := s.Load("t10000")
	if err != nil {
		t.Fatal(err)
	}
	open := time.Since(start)
	mustClose(t, loaded.Log)
	start = time.Now()
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	listed := time.Since(start)
	t.Logf("open a 10,000-message task (%d messages, %d API messages, %.1f MB): %v (target < 1 s)",
		len(loaded.Messages), len(loaded.API), float64(list[0].SizeBytes+list[1].SizeBytes)/1e6, open)
	t.Logf("list history (%d tasks): %v", len(list), listed)
}

func BenchmarkLoad10k(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	mustClose(b, fill(b, s, "t", 10_000))
	b.ResetTimer()
	for b.Loop() {
		l, err := s.Load("t")
		if err != nil || len(l.Messages) != 10_000 {
			b.Fatal(err)
		}
		mustClose(b, l.Log)
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	for _, n := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("after%d", n), func(b *testing.B) {
			s, err := Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			l := fill(b, s, "t", n)
			defer mustClose(b, l)
			now := time.Now()
			before := l.Written()
			b.ResetTimer()
			for b.Loop() {
				// Streaming updates of one message: not synced, as the loop writes them.
				m := sample(0, now)
				m.Index, m.Partial = n, true
				if err := l.AppendMessage(m, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(l.Written()-before)/float64(b.N), "bytes/op")
		})
	}
}
