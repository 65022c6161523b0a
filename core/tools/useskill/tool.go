// Package useskill is the use_skill tool: it hands the model one skill's instructions and
// the paths of its bundled files, on demand, so that the system prompt only needs the skills'
// names and descriptions (core/skills).
package useskill

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/skills"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt and in tool calls.
const Name = toolnames.UseSkill

// maxSkillKB is the size past which core/skills cuts a SKILL.md, for the truncation note.
const maxSkillKB = 256

//go:embed description.md
var description string

//go:embed messages.md
var messagesMD string

var messages = tools.Texts{MD: &messagesMD}

func message(key string, args ...any) string { return messages.Format(key, args...) }

// Catalog gives the skills that may be loaded at the moment of the call (usable ones: enabled
// and without problems). It is asked on every call, because files and toggles change while a
// task runs.
type Catalog interface {
	Skills() []skills.Skill
}

// Tool is use_skill.
type Tool struct {
	catalog Catalog
}

// New returns the tool over catalog.
func New(catalog Catalog) *Tool { return &Tool{catalog: catalog} }

// Spec implements tools.Tool.
func (*Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params: []tools.Param{{
			Name:        "skill_name",
			Required:    true,
			Description: message("skill_name"),
			Usage:       message("skill_name_usage"),
		}},
		Category: tools.CategoryRead,
		PlanSafe: true,
		ArgParam: "skill_name",
	}
}

// Offered reports whether any skill can be loaded: without one the tool is not offered.
func (t *Tool) Offered() bool { return len(skills.Usable(t.catalog.Skills())) > 0 }

var _ tools.Offerer = (*Tool)(nil)

// Run implements tools.Tool. Reading a skill is a read: it goes through read approval.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	name, _ := call.Param("skill_name")
	name = strings.TrimSpace(name)
	if name == "" {
		return tools.MissingParam(Name, "skill_name"), nil
	}
	offered := skills.Usable(t.catalog.Skills())
	if len(offered) == 0 {
		return tools.Errorf("%s", message("none")), nil
	}
	s, ok := find(offered, name)
	if !ok {
		names := make([]string, 0, len(offered))
		for _, o := range offered {
			names = append(names, o.Name)
		}
		return tools.Errorf("%s", message("not_found", name, strings.Join(names, ", "))), nil
	}
	abs, inside, err := env.Files.Resolve(s.Path)
	if err != nil {
		return tools.Errorf("%s", err.Error()), nil
	}
	rel := env.Files.Rel(abs)
	if env.Files.Ignored(abs) {
		env.UI.Say(ctx, msg.SayIgnoreError, rel, nil, false)
		return tools.Errorf("%s", message("ignored", rel)), nil
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask:      msg.AskTool,
		Category: tools.CategoryRead,
		Path:     abs,
		Inside:   inside,
		Payload:  &msg.Tool{Op: msg.OpReadFile, Path: rel, Content: abs, Outside: !inside},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("useskill: approve %s: %w", s.Name, err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: message("denied"), UserFeedback: ans.Text}, nil
	}
	l, err := s.Load()
	if err != nil {
		return tools.Result{}, fmt.Errorf("useskill: %w", err)
	}
	return tools.Result{Text: render(env.Files, l), Read: []string{abs}, UserFeedback: ans.Text}, nil
}

// find looks a skill up by name: exactly, else ignoring case.
func find(offered []skills.Skill, name string) (skills.Skill, bool) {
	for _, s := range offered {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range offered {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return skills.Skill{}, false
}

// render is the model-facing result: the body, then the bundled files as paths read_file
// accepts (workspace-relative inside the workspace, absolute outside it).
func render(files tools.Files, l skills.Loaded) string {
	var b strings.Builder
	b.WriteString(message("loaded", l.Name, l.Body))
	if l.Truncated {
		b.WriteString("\n\n" + message("truncated", maxSkillKB))
	}
	b.WriteString("\n\n")
	if len(l.Files) == 0 {
		b.WriteString(message("no_files"))
		return b.String()
	}
	list := make([]string, 0, len(l.Files))
	for _, f := range l.Files {
		list = append(list, "- "+files.Rel(f))
	}
	b.WriteString(message("files", strings.Join(list, "\n")))
	if l.MoreFiles {
		b.WriteString("\n" + message("more_files", len(l.Files), files.Rel(l.Dir)))
	}
	return b.String()
}
