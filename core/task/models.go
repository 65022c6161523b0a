package task

import "github.com/cairnhq/cairn/core/llm"

// model is the model that answers a request, with what the loop knows about it.
type model struct {
	name string
	info llm.ModelInfo
}

// modelFor returns the model of mode: the PLAN model in PLAN mode when one is set, else the
// ACT model. Switching modes between requests switches models; the history goes with it.
func (t *Task) modelFor(mode string) model {
	if mode == ModePlan && t.deps.PlanModel != "" {
		return model{name: t.deps.PlanModel, info: t.deps.PlanModelInfo}
	}
	return model{name: t.deps.Model, info: t.deps.ModelInfo}
}
