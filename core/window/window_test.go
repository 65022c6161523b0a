package window

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
)

func TestMaxAllowed(t *testing.T) {
	for _, tc := range []struct {
		window, want int
	}{
		{0, 98_000}, // unknown = 128k
		{-5, 98_000},
		{64_000, 37_000},
		{128_000, 98_000},
		{200_000, 160_000},
		{32_000, 25_600},       // 0.8·w beats w − 40k
		{100_000, 80_000},      // 0.8·w = 80k > 60k
		{1_000_000, 960_000},   // w − 40k beats 0.8·w
		{400_000, 360_000},     // w − 40k = 360k > 320k
		{8_192, 6_553},         // small windows keep 80%
		{2_000_000, 1_960_000}, // very large
	} {
		t.Run(fmt.Sprint(tc.window), func(t *testing.T) {
			if got := MaxAllowed(tc.window); got != tc.want {
				t.Errorf("MaxAllowed(%d) = %d, want %d", tc.window, got, tc.want)
			}
		})
	}
}

// conversation returns n alternating messages starting with the user, each naming its index.
func conversation(n int) []llm.Message {
	out := make([]llm.Message, n)
	for i := range out {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		out[i] = llm.Message{Role: role, Content: []llm.Content{llm.Text(fmt.Sprintf("message %d", i))}}
	}
	return out
}

func index(m llm.Message) int {
	var i int
	if _, err := fmt.Sscanf(m.Content[0].Text, "message %d", &i); err != nil {
		panic(err)
	}
	return i
}

// checkShape asserts the invariants of any projection of conversation(n).
func checkShape(t *testing.T, in, out []llm.Message) {
	t.Helper()
	if len(in) >= 3 && len(out) < 3 {
		t.Fatalf("only %d messages kept", len(out))
	}
	for i := 0; i < min(3, len(in)); i++ {
		if index(out[i]) != i {
			t.Fatalf("head message %d is input %d", i, index(out[i]))
		}
	}
	if index(out[len(out)-1]) != len(in)-1 {
		t.Fatalf("the last message was not kept")
	}
	for i, m := range out {
		want := llm.RoleUser
		if i%2 == 1 {
			want = llm.RoleAssistant
		}
		if m.Role != want {
			t.Fatalf("message %d is %s: alternation broken", i, m.Role)
		}
		// Tool-use/result pairs: an assistant message is followed by its own answer.
		if m.Role == llm.RoleAssistant && i+1 < len(out) && index(out[i+1]) != index(m)+1 {
			t.Fatalf("assistant %d is followed by input %d, not its answer", index(m), index(out[i+1]))
		}
	}
	removed := len(in) - len(out)
	if removed%2 != 0 {
		t.Fatalf("removed %d messages, an odd count", removed)
	}
	// The kept messages after the head are a contiguous tail of the input.
	for i := 3; i+1 < len(out); i++ {
		if index(out[i+1]) != index(out[i])+1 {
			t.Fatalf("kept tail is not contiguous at %d", i)
		}
	}
	hasNote := len(out[0].Content) > 1 && strings.Contains(out[0].Content[len(out[0].Content)-1].Text, "removed to fit")
	if hasNote != (removed > 0) {
		t.Fatalf("truncation note present = %v with %d removed", hasNote, removed)
	}
}

func TestTruncationRanges(t *testing.T) {
	for _, keep := range []Keep{KeepHalf, KeepQuarter} {
		for n := 2; n <= 200; n++ {
			name := fmt.Sprintf("half/%d", n)
			if keep == KeepQuarter {
				name = fmt.Sprintf("quarter/%d", n)
			}
			t.Run(name, func(t *testing.T) {
				in := conversation(n)
				before := conversation(n)
				s := &State{}
				s.removed = NextRemoved(in, 0, keep)
				out := s.render(in)
				if !reflect.DeepEqual(in, before) {
					t.Fatal("the input was modified")
				}
				if n < 3 {
					if len(out) != n {
						t.Fatalf("kept %d of %d", len(out), n)
					}
					return
				}
				checkShape(t, in, out)
				rest := n - 3
				want := rest / 4 * 2 // half, rounded down to an even count
				if keep == KeepQuarter {
					want = rest * 3 / 4 / 2 * 2 // three quarters, even
				}
				if removed := n - len(out); removed != want {
					t.Fatalf("removed %d of the %d after the head, want %d", removed, rest, want)
				}
			})
		}
	}
}

func TestTruncationExtendsTheRange(t *testing.T) {
	// A long task: each turn adds a pair, and every fifth turn is over the limit. The range
	// only grows, and between truncations the projection only gains messages at its end.
	s := &State{}
	var prev []llm.Message
	hist := conversation(5)
	for turn := 0; turn < 60; turn++ {
		hist = append(hist, conversation(len(hist) + 2)[len(hist):]...)
		tokens := int64(1000)
		if turn%5 == 4 {
			tokens = 200_000
		}
		before := s.Removed()
		out := Project(hist, s, tokens, 128_000)
		checkShape(t, hist, out)
		if s.Removed() < before {
			t.Fatalf("turn %d: the range shrank from %d to %d", turn, before, s.Removed())
		}
		if s.Removed() == before && prev != nil && !reflect.DeepEqual(out[:len(prev)], prev) {
			t.Fatalf("turn %d: the prefix changed without a new truncation", turn)
		}
		prev = out
	}
	if s.Removed() == 0 {
		t.Fatal("nothing was ever removed")
	}
}

func TestNextRemovedBrokenAlternation(t *testing.T) {
	// Two user messages in a row (a failed request followed by new feedback): the cut still
	// lands before an assistant message.
	in := conversation(21)
	in = append(in[:9], append([]llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("message 9")}}}, in[9:]...)...)
	got := NextRemoved(in, 0, KeepHalf)
	if in[headLen+got].Role != llm.RoleAssistant {
		t.Fatalf("first kept message after the range is %s", in[headLen+got].Role)
	}
	if NextRemoved(in[:2], 0, KeepQuarter) != 0 {
		t.Fatal("a two-message history was truncated")
	}
}

func bigText(n int) string { return strings.Repeat("x", n) }

func TestProject(t *testing.T) {
	file := strings.Repeat("func f() {}\n", 500) // 6 KB
	// reads builds a task whose user turns re-read the same file (dup) or each a new one.
	reads := func(turns int, dup bool) []llm.Message {
		h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\nfix it\n</task>")}}}
		for i := 0; i < turns; i++ {
			p := "a.go"
			if !dup {
				p = fmt.Sprintf("f%d.go", i)
			}
			h = append(h,
				llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("<read_file>\n<path>" + p + "</path>\n</read_file>")}},
				llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[read_file for '" + p + "'] Result:\n" + file)}})
		}
		return h
	}
	for _, tc := range []struct {
		name        string
		hist        []llm.Message
		dedup       bool
		tokens      int64
		wantRemoved bool
		wantNotes   int
	}{
		{"under the limit: dedup only", reads(10, true), true, 10_000, false, 9},
		{"under the limit, dedup off", reads(10, true), false, 10_000, false, 0},
		{"over the limit, dedup saves enough", reads(10, true), true, 99_000, false, 9},
		{"over the limit, dedup off truncates", reads(10, true), false, 99_000, true, 0},
		{"over the limit, nothing to dedup", reads(10, false), true, 99_000, true, 0},
		{"unknown usage is estimated", reads(60, false), true, 0, true, 0},
		{"unknown usage, small history", reads(3, false), true, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snapshot := fmt.Sprint(tc.hist)
			s := &State{Dedup: tc.dedup}
			out := Project(tc.hist, s, tc.tokens, 128_000)
			if fmt.Sprint(tc.hist) != snapshot {
				t.Fatal("the history was modified")
			}
			if got := s.Removed() > 0; got != tc.wantRemoved {
				t.Errorf("removed %d messages, want removal %v", s.Removed(), tc.wantRemoved)
			}
			notes := 0
			for _, m := range out {
				for _, c := range m.Content {
					notes += strings.Count(c.Text, "left out here") // superseded or unchanged
				}
			}
			if notes != tc.wantNotes {
				t.Errorf("%d dedup notes, want %d", notes, tc.wantNotes)
			}
		})
	}
}

func TestProjectDecidesOncePerTurn(t *testing.T) {
	hist := conversation(41)
	s := &State{}
	Project(hist, s, 150_000, 128_000)
	first := s.Removed()
	if first == 0 {
		t.Fatal("no truncation over the limit")
	}
	// A retry of the same request (same history, same stale usage) does not cut again.
	Project(hist, s, 150_000, 128_000)
	if s.Removed() != first {
		t.Fatalf("a retry cut again: %d → %d", first, s.Removed())
	}
	// After a context window error, Shrink cuts three quarters of the rest on the retry.
	Shrink(s)
	out := Project(hist, s, 150_000, 128_000)
	checkShape(t, hist, out)
	rest := len(hist) - headLen - first
	if got := s.Removed() - first; got != rest*3/4/2*2 {
		t.Fatalf("Shrink removed %d more of %d", got, rest)
	}
	// A restore that cuts the history back below the range starts again.
	out = Project(hist[:5], s, 1000, 128_000)
	if len(out) != 5 || s.Removed() != 0 {
		t.Fatalf("after a restore: %d messages, %d removed", len(out), s.Removed())
	}
}

func TestProjectQuarterWhenFarOver(t *testing.T) {
	hist := conversation(83)
	half, quarter := &State{}, &State{}
	Project(hist, half, 150_000, 128_000)    // over 98k, under twice
	Project(hist, quarter, 250_000, 128_000) // over twice 98k
	if half.Removed() != 40 || quarter.Removed() != 60 {
		t.Fatalf("removed %d (half) and %d (quarter) of 80", half.Removed(), quarter.Removed())
	}
}

func TestProjectDedupSavingIsPerTurn(t *testing.T) {
	// Once older copies are notes, they no longer count as a saving: a history still over the
	// limit after deduplication is truncated on the next turn.
	file := bigText(3000) + "\n" + bigText(3000)
	h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("task")}}}
	for i := 0; i < 20; i++ {
		h = append(h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("read")}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[read_file for 'a.go'] Result:\n" + file)}})
	}
	s := &State{Dedup: true}
	Project(h, s, 99_000, 128_000)
	if s.Removed() != 0 {
		t.Fatal("truncated although dedup saved most of the history")
	}
	h = append(h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("think")}},
		llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("more " + bigText(100))}})
	Project(h, s, 99_000, 128_000)
	if s.Removed() == 0 {
		t.Fatal("still over the limit and not truncated")
	}
}
