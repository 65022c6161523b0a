package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestSkillsRPCs lists skills (a bad one with its problem), lets the model load one with
// use_skill (auto-approved as a read), and checks that switching it off takes it out of the
// next task's prompt.
func TestSkillsRPCs(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{
			Text:   "<use_skill>\n<skill_name>release</skill_name>\n</use_skill>",
			Expect: &llmtest.Expect{Contains: []string{"SKILLS", "- release: Cut a release.", "## use_skill"}, NotContains: []string{"STEP ONE"}},
		},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{
			"[use_skill for 'release'] Result:", "<skill name=\"release\">\nSTEP ONE\n</skill>", "- .cairn/skills/release/notes.tmpl",
		}}},
		{Text: complete, Expect: &llmtest.Expect{NotContains: []string{"SKILLS", "Cut a release", "## use_skill"}}},
	}}, servertest.Options{Settings: func(s *config.Settings) {
		s.AutoApprove.Enabled, s.AutoApprove.ReadFiles = true, true
	}})
	ctx := context.Background()
	for rel, content := range map[string]string{
		".cairn/skills/release/SKILL.md":   "---\nname: release\ndescription: Cut a release.\n---\nSTEP ONE\n",
		".cairn/skills/release/notes.tmpl": "notes",
		".claude/skills/broken/SKILL.md":   "no frontmatter",
	} {
		p := filepath.Join(e.Workspace, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list, err := e.Files.ListSkills(ctx, &cairnv1.ListSkillsRequest{WorkspaceRoot: e.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	got := list.GetSkills()
	if len(got) != 2 || got[0].GetId() != "cairn:.cairn/skills/release" || !got[0].GetEnabled() || got[0].GetProblem() != "" ||
		got[1].GetName() != "broken" || got[1].GetProblem() == "" {
		t.Fatalf("ListSkills = %v", got)
	}

	w := e.Watch(e.NewTask("release it", "", act))
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := e.Files.ToggleSkill(ctx, &cairnv1.ToggleSkillRequest{Id: got[0].GetId(), Enabled: false}); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.Files.ListSkills(ctx, &cairnv1.ListSkillsRequest{WorkspaceRoot: e.Workspace}); list.GetSkills()[0].GetEnabled() {
		t.Fatal("the toggle did not stick")
	}
	w2 := e.Watch(e.NewTask("again", "", act))
	w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Files.ToggleSkill(ctx, &cairnv1.ToggleSkillRequest{}); err == nil {
		t.Fatal("a toggle without id was accepted")
	}
}
