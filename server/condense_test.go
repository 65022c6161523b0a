package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

func followup(q string) string {
	return "<ask_followup_question>\n<question>" + q + "</question>\n</ask_followup_question>"
}

func condenseCall(summary string) string {
	return "Condensing.\n<condense>\n<context>" + summary + "</context>\n</condense>"
}

// TestSmolCondensesTheConversation: /smol during a task makes the model call condense; once the
// user accepts, the following requests carry the task and the summary, not the earlier turns,
// and keep doing so as the conversation goes on.
func TestSmolCondensesTheConversation(t *testing.T) {
	const summary = "SUMMARY-7f3: the user wants a blue widget; nothing is written yet."
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "EARLY-REPLY-1 looking.\n" + followup("Which colour?")},
		{Text: "EARLY-REPLY-2\n" + followup("Which size?")},
		{Text: condenseCall(summary), Expect: &llmtest.Expect{
			LastUserContains: []string{`<explicit_instructions type="condense">`, "ANSWER-2"}}},
		{Text: followup("LATER-QUESTION-4 Shall I start?"), Expect: &llmtest.Expect{
			Contains:    []string{summary, "<task>\nbuild a widget\n</task>", "[condense] Result:"},
			NotContains: []string{"EARLY-REPLY-1", "EARLY-REPLY-2", "ANSWER-1", "ANSWER-2"},
			Messages:    2, // system + the condensed first message
		}},
		{Text: complete, Expect: &llmtest.Expect{
			Contains:    []string{summary, "LATER-QUESTION-4", "ANSWER-5"},
			NotContains: []string{"EARLY-REPLY-1", "ANSWER-1"},
			Messages:    4,
		}},
	}})
	e := servertest.StartWith(t, srv, servertest.Options{})
	host := e.ConnectHost()
	id := e.NewTask("build a widget", host.ID, act)
	w := e.Watch(id)

	w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
	e.Answer(id, message, "blue ANSWER-1")
	untilNthAsk(w, cairnv1.AskKind_ASK_KIND_FOLLOWUP, 2)
	send(t, e, id, "/smol ANSWER-2")
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_CONDENSE)
	if !strings.Contains(ask.GetText(), "SUMMARY-7f3") {
		t.Fatalf("condense ask text = %q", ask.GetText())
	}
	e.Answer(id, approve, "")
	untilNthAsk(w, cairnv1.AskKind_ASK_KIND_FOLLOWUP, 3)
	e.Answer(id, message, "yes ANSWER-5")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	e.Answer(id, approve, "")
	w.UntilStatus(cairnv1.TaskStatus_TASK_STATUS_COMPLETED)

	// The history on disk still has every turn: condensing is a projection.
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if n := len(reqs[2].Messages); n != 6 {
		t.Errorf("the /smol request sent %d messages, want 6 (nothing condensed before approval)", n)
	}
}

// TestAutoCondense: with auto-condense on and the last request over the threshold of a tiny
// context window, the next user turn asks the model to condense; not when the setting is off,
// and not on the turn that answers the condense.
func TestAutoCondense(t *testing.T) {
	for _, tc := range []struct {
		name string
		on   bool
	}{{"on", true}, {"off", false}} {
		t.Run(tc.name, func(t *testing.T) {
			marker := `<explicit_instructions type="auto_condense">`
			second := &llmtest.Expect{LastUserContains: []string{"ANSWER-2"}}
			if tc.on {
				second.LastUserContains = append(second.LastUserContains, marker)
			} else {
				second.LastUserNotContains = []string{marker}
			}
			turns := []llmtest.Turn{
				{Text: "EARLY-REPLY-1\n" + followup("Which colour?"), Usage: &llmtest.Usage{PromptTokens: 1_000, CompletionTokens: 50},
					Expect: &llmtest.Expect{LastUserNotContains: []string{marker}}},
				{Text: "EARLY-REPLY-2\n" + followup("Which shade?"), Usage: &llmtest.Usage{PromptTokens: 1_900, CompletionTokens: 50},
					Expect: &llmtest.Expect{LastUserNotContains: []string{marker}}}, // 1,050 tokens: under the threshold
				{Text: condenseCall("AUTO-SUMMARY-1"), Expect: second, Usage: &llmtest.Usage{PromptTokens: 1_950, CompletionTokens: 50}},
				{Text: complete, Expect: &llmtest.Expect{
					Contains:            []string{"AUTO-SUMMARY-1"},
					NotContains:         []string{"EARLY-REPLY-1", "EARLY-REPLY-2", "ANSWER-1", "ANSWER-2"},
					LastUserNotContains: []string{marker},
				}, Usage: &llmtest.Usage{PromptTokens: 300, CompletionTokens: 20}},
			}
			e := servertest.Start(t, llmtest.Script{Turns: turns}, servertest.Options{Settings: func(s *config.Settings) {
				s.API.ContextWindow = 2_000 // threshold: 75% = 1,500 tokens
				s.AutoCondense = tc.on
			}})
			host := e.ConnectHost()
			id := e.NewTask("paint it", host.ID, act)
			w := e.Watch(id)
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
			e.Answer(id, message, "red ANSWER-1")
			untilNthAsk(w, cairnv1.AskKind_ASK_KIND_FOLLOWUP, 2)
			e.Answer(id, message, "dark ANSWER-2")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_CONDENSE)
			e.Answer(id, approve, "")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			e.Answer(id, approve, "")
			w.UntilStatus(cairnv1.TaskStatus_TASK_STATUS_COMPLETED)
		})
	}
}

func send(t *testing.T, e *servertest.Env, id, text string) {
	t.Helper()
	if _, err := e.Tasks.SendMessage(context.Background(), &cairnv1.SendMessageRequest{TaskId: id, Text: text}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
}

// untilNthAsk waits until the n-th ask of kind is the open one.
func untilNthAsk(w *servertest.Watch, kind cairnv1.AskKind, n int) {
	w.Until("ask #"+strconv.Itoa(n)+" "+kind.String(), func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
		i := int(st.GetOpenAskIndex())
		if st == nil || i < 0 || i >= len(msgs) || msgs[i].GetAsk() != kind {
			return false
		}
		count := 0
		for _, m := range msgs[:i+1] {
			if m.GetAsk() == kind {
				count++
			}
		}
		return count == n
	})
}
