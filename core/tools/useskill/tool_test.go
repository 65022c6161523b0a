package useskill

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/skills"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// catalog is a fixed list of skills, found afresh from disk on every call like the agent's.
type catalog struct {
	root, global string
	toggles      map[string]bool
}

func (c catalog) Skills() []skills.Skill {
	all, _ := skills.Find(c.root, c.global, c.toggles) // the tests check Find's errors elsewhere
	return all
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		global   map[string]string
		toggles  map[string]bool
		ignore   []string
		skill    string
		deny     bool
		golden   string // compare the result text with testdata/<golden>
		want     string // else the result text must contain this
		wantErr  bool
		approved bool // an approval was asked
	}{
		{
			name: "loads body and bundled files", skill: "pdf-forms", golden: "loaded.golden", approved: true,
			files: map[string]string{
				".claude/skills/pdf/SKILL.md":        "---\nname: pdf-forms\ndescription: Fill PDF forms\n---\n# Forms\n\nRun `python scripts/fill.py <in> <out>`.\nSee reference.md for field names.\n",
				".claude/skills/pdf/scripts/fill.py": "print('fill')",
				".claude/skills/pdf/reference.md":    "fields",
			},
		},
		{
			name: "name ignoring case", skill: "PDF-Forms", want: `<skill name="pdf-forms">`, approved: true,
			files: map[string]string{".cairn/skills/p/SKILL.md": "---\nname: pdf-forms\ndescription: d\n---\nbody"},
		},
		{
			name: "no other files", skill: "solo", want: "This skill has no other files.", approved: true,
			files: map[string]string{".cairn/skills/solo/SKILL.md": "---\nname: solo\ndescription: d\n---\nbody"},
		},
		{
			name: "unknown name lists the choices", skill: "nope", wantErr: true,
			want: `There is no skill named "nope". The skills you can load are: a, b.`,
			files: map[string]string{
				".cairn/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n",
				".cairn/skills/b/SKILL.md": "---\nname: b\ndescription: d\n---\n",
				".cairn/skills/c/SKILL.md": "---\nname: c\n---\nno description: not offered",
			},
		},
		{
			name: "a disabled skill cannot be loaded", skill: "a", wantErr: true, want: "There are no skills available",
			files:   map[string]string{".cairn/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n"},
			toggles: map[string]bool{"cairn:.cairn/skills/a": false},
		},
		{
			name: "denied", skill: "a", deny: true, want: "The user denied loading this skill.", approved: true,
			files: map[string]string{".cairn/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n"},
		},
		{
			name: "ignored", skill: "a", ignore: []string{".cairn"}, wantErr: true, want: "blocks access to .cairn/skills/a/SKILL.md",
			files: map[string]string{".cairn/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n"},
		},
		{
			name: "global skill files are absolute paths", skill: "g", want: "GLOBAL/g/run.sh", approved: true,
			global: map[string]string{"g/SKILL.md": "---\nname: g\ndescription: d\n---\nbody", "g/run.sh": "echo"},
		},
		{
			name: "missing name", skill: " ", wantErr: true, want: "Missing value for required parameter 'skill_name'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, global := t.TempDir(), t.TempDir()
			write(t, root, tt.files)
			write(t, global, tt.global)
			ui := &toolstest.UI{Answer: tools.Answer{Approved: !tt.deny}}
			env := &tools.Env{Files: &toolstest.Files{Dir: root, Ignore: tt.ignore}, UI: ui}
			res, err := New(catalog{root, global, tt.toggles}).Run(context.Background(), env,
				tools.Call{Name: Name, Params: map[string]string{"skill_name": tt.skill}})
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(res.Text, filepath.ToSlash(global), "GLOBAL")
			if res.IsError != tt.wantErr {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tt.wantErr, text)
			}
			if res.Rejected != tt.deny {
				t.Errorf("Rejected = %v", res.Rejected)
			}
			if got := len(ui.Approvals) > 0; got != tt.approved {
				t.Errorf("approval asked = %v, want %v", got, tt.approved)
			}
			for _, a := range ui.Approvals {
				if a.Category != tools.CategoryRead || a.Ask != msg.AskTool {
					t.Errorf("approval = %+v, want a read", a)
				}
			}
			if tt.golden != "" {
				golden.File(t, filepath.Join("testdata", tt.golden), text)
			} else if !strings.Contains(text, tt.want) {
				t.Errorf("text = %q, want it to contain %q", text, tt.want)
			}
		})
	}
}

func TestSpec(t *testing.T) {
	s := New(nil).Spec()
	if s.Name != Name || s.Category != tools.CategoryRead || !s.PlanSafe || len(s.Params) != 1 || !s.Params[0].Required {
		t.Errorf("spec = %+v", s)
	}
	for _, key := range []string{"skill_name", "skill_name_usage", "loaded", "files", "more_files", "no_files", "truncated", "not_found", "none", "ignored", "denied"} {
		if _, ok := messages.Sections()[key]; !ok {
			t.Errorf("messages.md has no %s section", key)
		}
	}
}

// use_skill is offered to the model (native tool list) only while a skill can be loaded.
func TestOfferedOnlyWithSkills(t *testing.T) {
	root := t.TempDir()
	reg := tools.NewRegistry(New(catalog{root: root}))
	if got := len(reg.OfferedSpecs()); got != 0 {
		t.Fatalf("offered %d tools without a skill", got)
	}
	write(t, root, map[string]string{".cairn/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\nSteps.\n"})
	if got := reg.OfferedSpecs(); len(got) != 1 || got[0].Name != Name {
		t.Fatalf("offered %+v with a skill", got)
	}
}
