package window

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
)

func user(cs ...llm.Content) llm.Message { return llm.Message{Role: llm.RoleUser, Content: cs} }

func calling(ids ...string) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("ok")}}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "read_file", Arguments: `{"path":"` + id + `"}`})
	}
	return m
}

func TestPair(t *testing.T) {
	task := user(llm.Text("<task>x</task>"))
	noResult := prompt.NoResult()
	tests := []struct {
		name string
		in   []llm.Message
		want []llm.Message
	}{
		{"xml history untouched",
			[]llm.Message{task, {Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("<read_file>")}}, user(llm.Text("r"))},
			nil},
		{"paired",
			[]llm.Message{task, calling("a"), user(llm.ToolResult("a", "A"), llm.Text("env"))},
			nil},
		{"results put in call order",
			[]llm.Message{task, calling("a", "b"), user(llm.Text("env"), llm.ToolResult("b", "B"), llm.ToolResult("a", "A"))},
			[]llm.Message{task, calling("a", "b"), user(llm.ToolResult("a", "A"), llm.ToolResult("b", "B"), llm.Text("env"))}},
		{"missing result noted",
			[]llm.Message{task, calling("a"), user(llm.Text("<feedback>more</feedback>"))},
			[]llm.Message{task, calling("a"), user(llm.ToolResult("a", noResult), llm.Text("<feedback>more</feedback>"))}},
		{"call last",
			[]llm.Message{task, calling("a")},
			[]llm.Message{task, calling("a"), user(llm.ToolResult("a", noResult))}},
		{"orphan result becomes text",
			[]llm.Message{user(llm.Text("<task>x</task>"), llm.ToolResult("gone", "summary result")), calling("a"), user(llm.ToolResult("a", "A"))},
			[]llm.Message{user(llm.Text("<task>x</task>"), llm.Text("summary result")), calling("a"), user(llm.ToolResult("a", "A"))}},
		{"result of an older call becomes text",
			[]llm.Message{task, calling("a"), user(llm.ToolResult("a", "A")), {Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("t")}}, user(llm.ToolResult("a", "again"))},
			[]llm.Message{task, calling("a"), user(llm.ToolResult("a", "A")), {Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("t")}}, user(llm.Text("again"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprint(tt.in)
			got := Pair(tt.in)
			want := tt.want
			if want == nil {
				want = tt.in
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Pair =\n%v\nwant\n%v", got, want)
			}
			if fmt.Sprint(tt.in) != before {
				t.Error("Pair modified its input")
			}
		})
	}
}

// nativeHistory is a task of n native tool calls, each answered by its result.
func nativeHistory(n int) []llm.Message {
	h := []llm.Message{user(llm.Text("<task>\nread everything\n</task>"))}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		h = append(h, calling(id), user(llm.ToolResult(id, "[read_file for '"+id+"'] Result:\n"+strings.Repeat("x", 4000))))
	}
	return h
}

// TestTruncationKeepsCallsWithResults truncates native histories by half and by a quarter,
// repeatedly, and checks every projected tool call is answered by its own result and every
// result follows its call: Pair has nothing to repair.
func TestTruncationKeepsCallsWithResults(t *testing.T) {
	for _, n := range []int{3, 8, 21} {
		for _, keep := range []Keep{KeepHalf, KeepQuarter} {
			t.Run(fmt.Sprintf("%d calls keep %d", n, keep), func(t *testing.T) {
				h := nativeHistory(n)
				removed := 0
				for range 3 {
					removed = NextRemoved(h, removed, keep)
					s := &State{removed: removed}
					out := s.render(h)
					if got := Pair(out); !reflect.DeepEqual(got, out) {
						t.Fatalf("removed %d: the projection left a call or result unpaired", removed)
					}
					checkPaired(t, out)
				}
			})
		}
	}
	// The window-overflow path of Project itself.
	h := nativeHistory(30)
	s := &State{Dedup: true}
	out := Project(h, s, 200_000, 128_000)
	if s.Removed() == 0 {
		t.Fatal("nothing was truncated")
	}
	checkPaired(t, out)
}

func checkPaired(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if len(m.ToolCalls) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			t.Fatalf("message %d: call without a following message", i)
		}
		next := msgs[i+1]
		for j, call := range m.ToolCalls {
			if j >= len(next.Content) || next.Content[j].Type != llm.ContentToolResult || next.Content[j].ToolCallID != call.ID ||
				strings.Contains(next.Content[j].Text, prompt.NoResult()) {
				t.Fatalf("message %d: call %s is not answered by its result", i, call.ID)
			}
		}
	}
}

// TestCondenseNative condenses at a native condense call: the call is dropped with the turns
// before it, and its result, moved into the first message, is sent as text.
func TestCondenseNative(t *testing.T) {
	h := nativeHistory(2)
	h = append(h, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "condense", Arguments: `{"context":"s"}`}}},
		user(llm.ToolResult("c", "[condense] Result:\naccepted"), llm.Text("env")))
	at := len(h) - 1
	if !Condensable(h, at) {
		t.Fatal("a native condense call is not a condensing point")
	}
	out := Pair(Condense(h, at, "the summary"))
	if len(out) != 1 {
		t.Fatalf("%d messages after condensing, want 1", len(out))
	}
	for _, c := range out[0].Content {
		if c.Type == llm.ContentToolResult {
			t.Errorf("a result without its call is sent: %+v", c)
		}
	}
	if !strings.Contains(fmt.Sprint(out[0].Content), "accepted") {
		t.Error("the condense result is lost")
	}
}
