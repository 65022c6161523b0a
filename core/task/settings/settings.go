// Package settings owns the settings a task runs under and the models its requests go to
// (docs/architecture.md, "Models"): the auto-approval policy changes while tools run and a
// task with settings of its own may switch models between requests, so both are read without
// a lock by whoever needs them (the loop, the tools, the header).
package settings

import (
	"sync/atomic"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
)

// Models are the models a task's requests go to and the client that reaches them: the ACT
// model, and the PLAN model when another one answers PLAN requests ("" Plan: the ACT model).
type Models struct {
	Provider llm.Provider
	Act      string
	ActInfo  llm.ModelInfo
	Plan     string
	PlanInfo llm.ModelInfo
}

// Model is the model that answers a request, with what the loop knows about it, and the
// reasoning effort its requests carry ("": the settings').
type Model struct {
	Name   string
	Info   llm.ModelInfo
	Effort string
}

// PlanMode is PLAN mode's slug.
const PlanMode = "plan"

// ModeModels returns the model of a mode besides ACT and PLAN that names one (docs/modes.md,
// "A mode's model"): a Name of "" keeps the ACT model, an Effort of "" the settings'; false
// when the mode names neither.
type ModeModels func(mode string) (Model, bool)

// Owner is a task's settings and models. Readers load them without a lock; the writers
// (the task's own settings changing, the shared policy changing) are serialised by the task,
// so a change is never lost between a load and a store (docs/task-runtime.md).
type Owner struct {
	live   atomic.Pointer[config.Settings]
	models atomic.Pointer[Models]
	modes  ModeModels
}

// New returns the owner of a task's settings s and models m; modes (nil: none) are the models
// of the modes that name one.
func New(s config.Settings, m *Models, modes ModeModels) *Owner {
	o := &Owner{modes: modes}
	o.live.Store(&s)
	o.models.Store(m)
	return o
}

// Settings returns the task's current settings (never nil; callers must not modify it).
func (o *Owner) Settings() *config.Settings { return o.live.Load() }

// SetSettings replaces the task's settings; the caller serialises writers.
func (o *Owner) SetSettings(s config.Settings) { o.live.Store(&s) }

// SetModels replaces the task's models; the caller serialises writers.
func (o *Owner) SetModels(m *Models) { o.models.Store(m) }

// For returns the model of a mode: the PLAN model in PLAN mode when one is set, a custom
// mode's own model or effort when it names one, else the ACT model. Everything that depends
// on the model asks it for the mode at hand: the window, condensing, prices, the tool format,
// images, the reasoning effort. Switching modes between requests switches models; the history
// goes with it.
func (o *Owner) For(mode string) Model {
	m := o.models.Load()
	act := Model{Name: m.Act, Info: m.ActInfo}
	if mode == PlanMode {
		if m.Plan != "" {
			return Model{Name: m.Plan, Info: m.PlanInfo}
		}
		return act
	}
	if o.modes == nil {
		return act
	}
	own, ok := o.modes(mode)
	if !ok {
		return act
	}
	if own.Name == "" || own.Name == m.Act {
		own.Name, own.Info = m.Act, m.ActInfo
	}
	return own
}

// Provider is the client of the task's models.
func (o *Owner) Provider() llm.Provider { return o.models.Load().Provider }

// PricesKnown reports whether the requests of a mode's model can be priced (the model table
// or the settings' prices); without prices a cost limit counts only what the provider reports.
func (o *Owner) PricesKnown(mode string) bool {
	i := o.For(mode).Info
	return i.InputPrice > 0 || i.OutputPrice > 0
}
