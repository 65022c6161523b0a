package window

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
)

func fileText(name string, version int) string {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "// %s line %d of version %d\n", name, i, version)
	}
	return b.String()
}

func readMsg(p string, version int) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("<read_file>\n<path>" + p + "</path>\n</read_file>")}},
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[read_file for '" + p + "'] Result:\n" + fileText(p, version))}},
	}
}

// TestPrefixStableAfterReRead: two consecutive requests, the second after a file was read
// again with new content, share every byte of the first request's messages; the older copy is
// left as it was (the cache keeps serving it) and the new one is sent whole.
func TestPrefixStableAfterReRead(t *testing.T) {
	h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\ntune them\n</task>")}}}
	for _, f := range []string{"a.go", "b.go", "c.go", "d.go"} {
		h = append(h, readMsg(f, 1)...)
	}
	s := &State{Dedup: true}
	first := Project(h, s, 1000, 128_000)
	h = append(h, readMsg("a.go", 2)...)
	second := Project(h, s, 1000, 128_000)
	if len(second) != len(first)+2 {
		t.Fatalf("%d messages after %d", len(second), len(first))
	}
	if !reflect.DeepEqual(second[:len(first)], first) {
		t.Fatal("the second request rewrote the first one's messages")
	}
	if a, b := render(first), render(second); !strings.HasPrefix(b, a) {
		t.Fatal("the rendered bytes of the first request are not a prefix of the second")
	}
	if !strings.Contains(second[len(second)-1].Content[0].Text, fileText("a.go", 2)) {
		t.Fatal("the new copy was not sent whole")
	}
}

// TestUnchangedReReadIsNoted: a copy equal to the latest one in the window becomes a note when
// it arrives; a changed copy is sent whole.
func TestUnchangedReReadIsNoted(t *testing.T) {
	for _, tc := range []struct {
		name        string
		version     int
		wantNote    bool
		wantContent bool
	}{
		{"same content", 1, true, false},
		{"changed content", 2, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\nlook\n</task>")}}}
			h = append(h, readMsg("a.go", 1)...)
			h = append(h, readMsg("b.go", 1)...)
			h = append(h, readMsg("c.go", 1)...)
			s := &State{Dedup: true}
			Project(h, s, 1000, 128_000)
			h = append(h, readMsg("a.go", tc.version)...)
			out := Project(h, s, 1000, 128_000)
			last := out[len(out)-1].Content[0].Text
			if got := strings.Contains(last, "exactly the same as the latest copy"); got != tc.wantNote {
				t.Errorf("note %v, want %v:\n%s", got, tc.wantNote, last)
			}
			if got := strings.Contains(last, fileText("a.go", tc.version)); got != tc.wantContent {
				t.Errorf("content %v, want %v", got, tc.wantContent)
			}
			if !strings.Contains(out[2].Content[0].Text, fileText("a.go", 1)) {
				t.Error("the earlier copy was changed")
			}
		})
	}
}

// TestSettlementNotesSupersededCopies: once superseded copies are restaleShare of what is
// sent, one request rewrites them (the backward rule over the whole window); in between, each
// request keeps the previous one's messages byte for byte.
func TestSettlementNotesSupersededCopies(t *testing.T) {
	h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\nedit a.go\n</task>")}}}
	for _, f := range []string{"b.go", "c.go", "d.go"} {
		h = append(h, readMsg(f, 1)...)
	}
	s := &State{Dedup: true}
	var prev []llm.Message
	const reads = 12
	settlements := 0
	for v := 1; v <= reads; v++ {
		h = append(h, readMsg("a.go", v)...)
		out := Project(h, s, 1000, 128_000)
		if prev != nil && !reflect.DeepEqual(out[:len(prev)], prev) {
			settlements++
			if !reflect.DeepEqual(out, dedup(h)) {
				t.Fatalf("read %d: the settlement is not the backward rule over the window", v)
			}
		}
		if share := staleShare(out); share >= restaleShare {
			t.Fatalf("read %d: %.0f%% of the request is superseded copies", v, 100*share)
		}
		prev = out
	}
	if settlements == 0 || settlements > reads/3 {
		t.Fatalf("%d settlements over %d re-reads, want between 1 and %d", settlements, reads, reads/3)
	}
}

// TestDecisionsResetWhenHistoryChanges: decisions belong to the messages they were made for; a
// history whose first message was replaced (condensing) is decided afresh.
func TestDecisionsResetWhenHistoryChanges(t *testing.T) {
	h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\none\n</task>")}}}
	h = append(h, readMsg("a.go", 1)...)
	s := &State{Dedup: true}
	Project(h, s, 1000, 128_000)
	h2 := append([]llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\ntwo\n</task>")}}}, h[1:]...)
	h2 = append(h2, readMsg("b.go", 1)...)
	out := Project(h2, s, 1000, 128_000)
	if out[0].Content[0].Text != "<task>\ntwo\n</task>" {
		t.Fatalf("stale decision reused: %q", out[0].Content[0].Text)
	}
}
