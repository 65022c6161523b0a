package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// An edit's row ends up saying how the edit ended: the daemon sets the outcome on
// the approval's tool payload once the user decided and the save ran.
func TestEditOutcomeOnRow(t *testing.T) {
	cases := []struct {
		name   string
		answer cairnv1.AskResponse
		onSave func(path, proposal string) string
		want   cairnv1.ToolOutcome
	}{
		{name: "approved", answer: approve, want: cairnv1.ToolOutcome_TOOL_OUTCOME_SAVED},
		{name: "user changed the proposal", answer: approve,
			onSave: func(_, s string) string { return strings.Replace(s, "\"hello\"", "\"hello, user\"", 1) },
			want:   cairnv1.ToolOutcome_TOOL_OUTCOME_SAVED_WITH_CHANGES},
		{name: "rejected", answer: reject, want: cairnv1.ToolOutcome_TOOL_OUTCOME_REJECTED},
		{name: "save failed", answer: approve,
			// The file's folder disappears under the editor: the save cannot write it.
			onSave: func(path, s string) string {
				if err := os.RemoveAll(filepath.Dir(path)); err != nil {
					t.Error(err)
				}
				return s
			},
			want: cairnv1.ToolOutcome_TOOL_OUTCOME_FAILED},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diff := sr("\tfmt.Println(\"hi\")\n", "\tfmt.Println(\"hello\")\n")
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: replaceIn("cmd/main.go", diff)},
				{Text: complete},
			}}, servertest.Options{})
			seed(t, e, "cmd/main.go", goFile, 0o644)
			host := e.ConnectHost()
			host.OnSave = c.onSave
			id := e.NewTask("edit", host.ID, act)
			w := e.Watch(id)
			ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
			if got := ask.GetTool().GetOutcome(); got != cairnv1.ToolOutcome_TOOL_OUTCOME_UNSPECIFIED {
				t.Fatalf("outcome %v before the user decided", got)
			}
			e.Answer(id, c.answer, "")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			row := w.Messages()[ask.GetIndex()]
			if got := row.GetTool().GetOutcome(); got != c.want {
				t.Fatalf("row %d outcome = %v, want %v", ask.GetIndex(), got, c.want)
			}
			// A fresh subscription (the webview reopened) reads the same outcome.
			fresh := e.Watch(id)
			fresh.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			if got := fresh.Messages()[ask.GetIndex()].GetTool().GetOutcome(); got != c.want {
				t.Fatalf("snapshot outcome = %v, want %v", got, c.want)
			}
			llmOK(t, e)
		})
	}
}
