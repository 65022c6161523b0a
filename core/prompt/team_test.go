package prompt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/skills"
	"github.com/cairnhq/cairn/core/tools"
)

// teamInput has AGENTS.md files at two depths, a conditional rule and two skills, with
// use_skill among the tools.
func teamInput() Input {
	in := baseInput()
	in.Specs = append(in.Specs, tools.Spec{Name: "use_skill", Description: "Load a skill.",
		Params: []tools.Param{{Name: "skill_name", Required: true, Description: "The skill.", Usage: "Skill name here"}}})
	in.Rules = []rules.Rule{
		{ID: "clinerules:.clinerules/go.md", Source: rules.SourceClinerules, Name: ".clinerules/go.md",
			Content: "Run gofmt.", Paths: []string{"**/*.go", "go.mod"}, Enabled: true},
		{ID: "agents:AGENTS.md", Source: rules.SourceAgents, Name: "AGENTS.md", Content: "Run make test before finishing.", Enabled: true},
		{ID: "agents:web/api/AGENTS.md", Source: rules.SourceAgents, Name: "web/api/AGENTS.md", Folder: "web/api",
			Content: "Handlers return JSON errors.", Enabled: true},
	}
	in.Skills = []skills.Skill{
		{ID: "cairn:.cairn/skills/release", Name: "release", Description: "Cut a release: changelog, tag, notes.", Enabled: true},
		{ID: "claude:.claude/skills/pdf", Name: "pdf-forms", Description: "Fill in PDF forms with the bundled script.", Enabled: true},
	}
	return in
}

// sections keeps the named top-level sections of a rendered prompt.
func sections(prompt string, titles ...string) string {
	var keep []string
	for _, s := range strings.Split(prompt, sectionSeparator) {
		for _, t := range titles {
			if strings.HasPrefix(s, t+"\n") {
				keep = append(keep, strings.TrimSpace(s))
			}
		}
	}
	return strings.Join(keep, sectionSeparator) + "\n"
}

func TestTeamSectionsGolden(t *testing.T) {
	got, err := Render(teamInput())
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "team_sections.golden"), sections(got, "SKILLS", "USER'S CUSTOM INSTRUCTIONS"))
	if i, j := strings.Index(got, "\nSKILLS\n"), strings.Index(got, "\nRULES\n"); i < 0 || j < i {
		t.Errorf("SKILLS should come before RULES (at %d, %d)", i, j)
	}
}

func TestSkillsSectionOnlyWithSkillsAndTool(t *testing.T) {
	noSkills := teamInput()
	noSkills.Skills = nil
	noTool := teamInput()
	noTool.Specs = baseInput().Specs
	for name, in := range map[string]Input{"no skills": noSkills, "no use_skill tool": noTool} {
		t.Run(name, func(t *testing.T) {
			if got := render(t, in); strings.Contains(got, "SKILLS") || strings.Contains(got, "pdf-forms") {
				t.Error("the SKILLS section was rendered")
			}
		})
	}
}
