package window

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/llm"
)

// condensed returns conversation(n) whose message at-1 is an assistant condense call.
func condensed(n, at int) []llm.Message {
	h := conversation(n)
	h[at-1].Content = []llm.Content{llm.Text("message " + itoa(at-1) + "\n<condense>\n<context>the summary</context>\n</condense>")}
	return h
}

func itoa(i int) string { return strconv.Itoa(i) }

func deepCopy(h []llm.Message) []llm.Message {
	out := make([]llm.Message, len(h))
	for i, m := range h {
		m.Content = append([]llm.Content(nil), m.Content...)
		out[i] = m
	}
	return out
}

func texts(m llm.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		b.WriteString(c.Text)
		b.WriteString("\n---\n")
	}
	return b.String()
}

func TestCondenseKeepsTaskSummaryAndLaterMessages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n, at int
	}{
		{"condense as the first reply", 3, 2},
		{"mid conversation, nothing after yet", 8, 6},
		{"mid conversation, later turns", 12, 6},
		{"late", 20, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := condensed(tc.n, tc.at)
			before := deepCopy(h)
			out := Condense(h, tc.at, "  the summary of it all\n")
			if !reflect.DeepEqual(h, before) {
				t.Fatal("Condense modified the history")
			}
			if want := 1 + tc.n - tc.at - 1; len(out) != want {
				t.Fatalf("len = %d, want %d", len(out), want)
			}
			first := texts(out[0])
			for _, want := range []string{"message 0", "the summary of it all", "message " + itoa(tc.at), "[The conversation so far was condensed"} {
				if !strings.Contains(first, want) {
					t.Errorf("first message lacks %q:\n%s", want, first)
				}
			}
			if out[0].Role != llm.RoleUser {
				t.Errorf("first role = %s", out[0].Role)
			}
			for i := 1; i < tc.at; i++ {
				for _, m := range out {
					for _, c := range m.Content {
						if c.Text == "message "+itoa(i) || strings.HasPrefix(c.Text, "message "+itoa(i)+"\n") {
							t.Errorf("message %d survived the condense", i)
						}
					}
				}
			}
			for i, m := range out[1:] {
				if index(m) != tc.at+1+i {
					t.Errorf("out[%d] = message %d, want %d", i+1, index(m), tc.at+1+i)
				}
				if want := []llm.Role{llm.RoleAssistant, llm.RoleUser}[i%2]; m.Role != want {
					t.Errorf("out[%d] role %s, want %s (alternation)", i+1, m.Role, want)
				}
			}
		})
	}
}

func TestCondenseIgnoresInvalidPoints(t *testing.T) {
	h := condensed(8, 6)
	for _, tc := range []struct {
		name    string
		history []llm.Message
		at      int
	}{
		{"zero", h, 0},
		{"head", h, 1},
		{"past the end (cut back by a restore)", h[:6], 6},
		{"assistant index", h, 5},
		{"previous message is no condense call", conversation(8), 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Condense(tc.history, tc.at, "s")
			if len(out) != len(tc.history) || &out[0] != &tc.history[0] {
				t.Fatalf("history changed: %d messages from %d", len(out), len(tc.history))
			}
		})
	}
}

// TestCondenseGolden pins the model-facing text of the condensed first message.
func TestCondenseGolden(t *testing.T) {
	h := condensed(4, 2)
	out := Condense(h, 2, "1. The user asked for X.\n2. Next: do Y.")
	got := texts(out[0])
	path := filepath.Join("testdata", "condense", "first.golden")
	if golden.Update() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestProjectAfterCondense: the condensed conversation is still truncated by Project when it
// grows past the window, keeping the condensed first message.
func TestProjectAfterCondense(t *testing.T) {
	h := condensed(40, 6)
	s := &State{}
	// Before the condense was accepted the whole history was projected.
	_ = Project(h[:6], s, 0, 0)
	view := Condense(h, 6, "sum")
	out := Project(view, s, 1_000_000, 0) // over any limit: truncate
	if len(out) >= len(view) {
		t.Fatalf("no truncation: %d of %d", len(out), len(view))
	}
	if !strings.Contains(texts(out[0]), "sum") {
		t.Fatal("the summary was truncated away")
	}
	checkAlternation(t, out)
}

func checkAlternation(t *testing.T, out []llm.Message) {
	t.Helper()
	for i, m := range out {
		if want := []llm.Role{llm.RoleUser, llm.RoleAssistant}[i%2]; m.Role != want {
			t.Fatalf("out[%d] role %s, want %s", i, m.Role, want)
		}
	}
}
