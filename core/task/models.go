package task

import (
	"fmt"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/store"
)

// ownPolicy reports whether a task with header meta has an approval policy of its own: the
// shared policy's changes pass it by.
func ownPolicy(meta store.Meta) bool {
	return meta.Overrides != nil && meta.Overrides.AutoApprove != nil
}

// applyOverrides gives a loaded task the settings of its own a resume brings (nil: none):
// its model and policy at once; an endpoint, key, tool format, effort, limit, browser or
// sandbox switch would need the task assembled again, so they are refused, never ignored.
func (t *Task) applyOverrides(extra *config.Overrides) error {
	if extra == nil || extra.IsZero() {
		return nil
	}
	rest := *extra
	rest.Model, rest.PlanModel, rest.AutoApprove = "", "", nil
	if !rest.IsZero() {
		return fmt.Errorf("%w: the task is open in this daemon; its endpoint, key, tool format, effort, limits, browser and sandbox "+
			"change when it is resumed after it is closed (the model and auto-approve policy change at once)", ErrBadRequest)
	}
	t.conv.SetMeta(func(m *store.Meta) {
		if m.Overrides == nil {
			m.Overrides = &config.Overrides{}
		}
	})
	return t.UpdateOwnSettings(extra.Model, extra.AutoApprove)
}

// UpdateOwnSettings changes the model of the current mode (model != "") or the approval
// policy (p != nil) of a task that has settings of its own, from its next request, and saves
// them with the task. A task on the shared settings is refused with ErrNotOwnSettings: its
// model and policy are the shared settings'.
func (t *Task) UpdateOwnSettings(model string, p *config.AutoApprove) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.step.closed {
		return ErrClosed
	}
	meta := t.conv.Meta()
	if meta.Overrides == nil {
		return ErrNotOwnSettings
	}
	own := *meta.Overrides
	s := *t.cfg.Settings()
	if model != "" {
		if t.deps.Models == nil {
			return fmt.Errorf("%w: this task's model cannot change", ErrBadRequest)
		}
		if meta.Mode == ModePlan && s.API.PlanModel != "" && s.API.PlanModel != s.API.Model {
			s.API.PlanModel, own.PlanModel = model, model
		} else {
			s.API.Model, own.Model = model, model
			meta.Model = model
		}
		models := t.deps.Models(s)
		meta.Included = models.ActInfo.Included
		t.cfg.SetModels(models)
	}
	if p != nil {
		policy := *p
		if len(policy.DenyList) == 0 {
			policy.DenyList = s.AutoApprove.DenyList
		}
		s.AutoApprove = policy
		own.AutoApprove = &policy
	}
	t.cfg.SetSettings(s)
	t.conv.SetMeta(func(m *store.Meta) { m.Model, m.Included, m.Overrides = meta.Model, meta.Included, &own })
	t.publishStateLocked()
	return nil
}
