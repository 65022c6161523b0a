package task

import (
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
)

// The editor's own models (vscode-lm) have no price: the task says at its start that a cost
// limit does not apply, and its state carries the header's "included" and the model's label.
func TestIncludedModelSaysTheCostLimitDoesNotApply(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	r.info = llm.ModelInfo{ContextWindow: 64_000, Included: true, Label: "copilot · gpt-4o"}
	r.settings = func(s *config.Settings) { s.TaskLimits.MaxCost = 2 }
	tk := r.newTask("go")
	waitAsk(t, tk, msg.AskCompletionResult)
	said := false
	for _, m := range tk.Messages() {
		if m.Kind == msg.SayInfo && strings.Contains(m.Text, "cost limit of $2.00 does not apply") {
			said = true
		}
		if m.Kind == msg.SayInfo && strings.Contains(m.Text, "cannot be checked from prices") {
			t.Errorf("an included model is called unpriced: %q", m.Text)
		}
	}
	if !said {
		t.Fatal("no row says the cost limit does not apply")
	}
	st := tk.State()
	if !st.Included || st.ModelLabel != "copilot · gpt-4o" || st.PricesKnown || st.ContextWindow != 64_000 {
		t.Fatalf("state included %v label %q prices known %v window %d", st.Included, st.ModelLabel, st.PricesKnown, st.ContextWindow)
	}
	// The saved summary says so too: Recent tasks and History show "included", not "price unknown".
	saved, err := r.st.Read(tk.ID())
	if err != nil || !saved.Meta.Included {
		t.Fatalf("saved meta included %v, %v", saved != nil && saved.Meta.Included, err)
	}
}
