package task

import (
	"fmt"
	"slices"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/store"
)

// ownPolicy reports whether a task with header meta has an approval policy of its own: the
// shared policy's changes pass it by.
func ownPolicy(meta store.Meta) bool {
	return meta.Overrides != nil && meta.Overrides.AutoApprove != nil
}

// applyOverrides gives a loaded task t the settings of its own a resume brings (nil: none):
// its model and policy at once; an endpoint, key, tool format, effort, limit, browser or
// sandbox switch would need the task assembled again, so they are refused, never ignored.
func applyOverrides(t *Task, extra *config.Overrides) error {
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
	return t.UpdateOwnSettings(extra.Model, extra.AutoApprove, nil)
}

// UpdateOwnSettings changes the model of the current mode (model != "") or the approval
// policy (p != nil) of a task that has settings of its own, from its next request, and saves
// them with the task. A task on the shared settings is refused with ErrNotOwnSettings: its
// model and policy are the shared settings'. A model the policy files do not list is refused
// (docs/settings.md, "Policy files").
//
// allow are allow rules the user gave in the task's session (an "always" answer): any task
// adds them to its session layer of the policy (docs/settings.md, "Policy files") from its
// next tool call and saves them in its header, so that a resumed task keeps them. A rule
// already there is not added twice; one that is not a valid policy rule is ErrBadRequest.
func (t *Task) UpdateOwnSettings(model string, p *config.AutoApprove, allow []config.SessionRule) error {
	for _, r := range allow {
		if err := policy.Rule(r).Check(); err != nil {
			return fmt.Errorf("%w: %w", ErrBadRequest, err)
		}
	}
	return t.state.Change(func(closed bool) error {
		if closed {
			return ErrClosed
		}
		changes := model != "" || p != nil
		if changes && t.conv.Meta().Overrides == nil {
			return ErrNotOwnSettings
		}
		if len(allow) > 0 {
			t.conv.SetMeta(func(m *store.Meta) {
				have := slices.Clone(m.SessionRules)
				for _, r := range allow {
					if !slices.Contains(have, r) {
						have = append(have, r)
					}
				}
				m.SessionRules = have
			})
		}
		meta := t.conv.Meta()
		if !changes && len(allow) > 0 {
			return nil
		}
		if meta.Overrides == nil {
			return ErrNotOwnSettings
		}
		own := *meta.Overrides
		s := *t.cfg.Settings()
		if model != "" {
			if t.deps.Models == nil {
				return fmt.Errorf("%w: this task's model cannot change", ErrBadRequest)
			}
			if err := t.deps.Policy.CheckModel(s.API.Preset, model); err != nil {
				return fmt.Errorf("%w: %w", ErrBadRequest, err)
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
		return nil
	})
}
