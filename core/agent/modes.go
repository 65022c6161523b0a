package agent

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/modes"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/delegate"
)

// modeCatalog is one task's modes (core/modes): the built-ins, the user's global modes and
// the workspace's. It reads the files again each time it is asked, so a mode edited while a
// task runs applies from the next request; ACT and PLAN read nothing.
type modeCatalog struct {
	roots  []string
	global string
}

var _ task.Modes = modeCatalog{}

// set reads the modes.
func (c modeCatalog) set() modes.Set { return modes.Load(c.roots, c.global) }

// Name implements task.Modes: the modes besides ACT and PLAN.
func (c modeCatalog) Name(slug string) (string, bool) {
	if slug == task.ModeAct || slug == task.ModePlan {
		return "", false
	}
	m, ok := c.set().Get(slug)
	return m.Name, ok
}

// custom returns the mode a task in slug is held to; false for ACT and PLAN, which hold it to
// nothing here (PLAN's refusals are the task runtime's own). A mode whose file went away while
// the task was in it keeps only the tools every mode has, so nothing is allowed by accident.
func (c modeCatalog) custom(slug string) (modes.Mode, bool) {
	if slug == "" || slug == task.ModeAct || slug == task.ModePlan {
		return modes.Mode{}, false
	}
	if m, ok := c.set().Get(slug); ok {
		return m, true
	}
	return modes.Mode{Slug: slug, Name: slug}, true
}

// models returns the model and reasoning effort of a task's custom mode that names one
// (docs/modes.md, "A mode's model"), read from the mode's file at each request like the rest
// of the mode. The model is one of the task's endpoint, resolved like the PLAN model; s is
// the task's settings when it is assembled.
func (c modeCatalog) models(s config.Settings) task.ModeModels {
	return func(slug string) (task.ModeModel, bool) {
		m, ok := c.custom(slug)
		if !ok || m.Model == "" && m.ReasoningEffort == "" {
			return task.ModeModel{}, false
		}
		out := task.ModeModel{Name: m.Model, Effort: m.ReasoningEffort}
		if m.Model != "" {
			out.Info = sideModelInfo(s, m.Model) // the ACT model's own info when it is that one (settings.Owner.For)
		}
		return out, true
	}
}

// promptModes is what the system prompt says about modes: the task's custom mode, and every
// mode switch_mode and delegate may name.
func (c modeCatalog) promptModes(slug string) (*prompt.ModeInfo, []prompt.ModeChoice) {
	s := c.set()
	var info *prompt.ModeInfo
	if m, ok := c.custom(slug); ok {
		if found, ok := s.Get(slug); ok {
			m = found
		}
		info = &prompt.ModeInfo{Slug: m.Slug, Name: m.Name, Role: m.Role, Instructions: m.Instructions,
			Groups: m.GroupNames(), EditPattern: m.EditPattern, EditPatternNote: m.EditPatternNote}
	}
	choices := make([]prompt.ModeChoice, 0, len(s.Modes))
	for _, m := range s.Modes {
		choices = append(choices, prompt.ModeChoice{Slug: m.Slug, Name: m.Name, Description: m.Description})
	}
	return info, choices
}

// gated holds one tool to the task's mode (docs/modes.md, "What Cairn enforces"): a mode
// without the tool's group is not offered it (OfferedIn) and has it refused when the model
// calls it anyway; an edit outside the mode's pattern is refused naming the pattern; a
// completion's demonstration command is dropped in a mode without commands. Nothing of the
// tool runs before the check, its approval included, so a refused command never runs.
type gated struct {
	tools.Tool
	modes modeCatalog
	files tools.Files
}

// OfferedIn implements tools.ModeOfferer.
func (g gated) OfferedIn(mode string) bool {
	m, ok := g.modes.custom(mode)
	if !ok {
		return g.Spec().Name != delegate.Name // ACT and PLAN do not delegate
	}
	return m.Offers(g.Spec())
}

// Offered keeps the wrapped tool's own offer (tools.Offerer).
func (g gated) Offered() bool {
	o, ok := g.Tool.(tools.Offerer)
	return !ok || o.Offered()
}

// refusal is the model's result for call in mode, "" when it may run; call is returned as it
// runs (a completion's command dropped).
func (g gated) refusal(mode string, call tools.Call) (string, tools.Call) {
	m, ok := g.modes.custom(mode)
	spec := g.Spec()
	if !ok && spec.Name == delegate.Name {
		m, _ = g.modes.set().Get(mode) // ACT's or PLAN's own groups, without delegate
		return m.ToolRefusal(spec.Name), call
	}
	if !ok {
		return "", call
	}
	if !m.Offers(spec) {
		return m.ToolRefusal(spec.Name), call
	}
	if spec.Category == tools.CategoryEdit {
		if r := m.EditRefusal(g.rel(call.Params["path"])); r != "" {
			return r, call
		}
	}
	if _, has := call.Params["command"]; has && spec.Category == tools.CategoryInteract && !m.Has(modes.GroupCommand) {
		params := make(map[string]string, len(call.Params))
		for k, v := range call.Params {
			if k != "command" {
				params[k] = v
			}
		}
		call.Params = params
	}
	return "", call
}

// rel is an edit's path relative to its workspace root, slash-separated ("" outside every
// root or when it does not resolve).
func (g gated) rel(p string) string {
	if g.files == nil || strings.TrimSpace(p) == "" {
		return ""
	}
	abs, inside, err := g.files.Resolve(p)
	if err != nil || !inside {
		return ""
	}
	rel := g.files.Rel(abs)
	// A root other than the first is named "name:" before its path.
	if i := strings.Index(rel, ":"); i > 0 && !filepath.IsAbs(rel) {
		rel = rel[i+1:]
	}
	return filepath.ToSlash(rel)
}

func (g gated) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	r, call := g.refusal(env.Mode, call)
	if r != "" {
		return tools.Result{Text: r, IsError: true}, nil
	}
	return g.Tool.Run(ctx, env, call)
}

// gatedPreview is gated for a tool that previews its call while it streams: a call the mode
// refuses opens no diff view.
type gatedPreview struct {
	gated
	pv tools.Previewer
}

func (g gatedPreview) Preview(ctx context.Context, env *tools.Env, call tools.Call) error {
	if r, _ := g.refusal(env.Mode, call); r != "" {
		return nil
	}
	return g.pv.Preview(ctx, env, call)
}

func (g gatedPreview) Discard(ctx context.Context) {
	if d, ok := g.pv.(tools.Discarder); ok {
		d.Discard(ctx)
	}
}

// holdToModes wraps every tool of reg in gated.
func holdToModes(reg *tools.Registry, c modeCatalog, files tools.Files) *tools.Registry {
	out := tools.NewRegistry()
	for _, spec := range reg.Specs() {
		t, _ := reg.Get(spec.Name)
		g := gated{Tool: t, modes: c, files: files}
		if pv, ok := t.(tools.Previewer); ok {
			out.Add(gatedPreview{gated: g, pv: pv})
		} else {
			out.Add(g)
		}
	}
	return out
}
