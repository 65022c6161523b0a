package agent

import (
	"log/slog"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/skills"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/useskill"
)

// skillCatalog finds one workspace's skills afresh on every call, with the toggles of the
// moment: a skill added or switched off while a task runs shows in its next request.
type skillCatalog struct {
	root, global string
	settings     func() config.Settings
	logger       *slog.Logger
}

var _ useskill.Catalog = skillCatalog{}

// Skills lists every skill found, usable or not (useskill keeps the usable ones). The zero
// catalog has none: subagents get no use_skill and their prompt lists no skills.
func (c skillCatalog) Skills() []skills.Skill {
	if c.settings == nil {
		return nil
	}
	all, err := skills.Find(c.root, c.global, c.settings().SkillToggles)
	if err != nil && c.logger != nil {
		c.logger.Warn("agent: reading skills", "err", err)
	}
	return all
}

// promptSpecs drops use_skill from the tools the prompt lists when no skill is usable: a
// tool with nothing to load is only noise.
func promptSpecs(specs []tools.Spec, usable []skills.Skill) []tools.Spec {
	if len(usable) > 0 {
		return specs
	}
	out := make([]tools.Spec, 0, len(specs))
	for _, s := range specs {
		if s.Name != useskill.Name {
			out = append(out, s)
		}
	}
	return out
}
