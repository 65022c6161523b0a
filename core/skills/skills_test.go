package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
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

const pdfSkill = "---\nname: pdf-forms\ndescription: Fill in PDF forms\n  with the bundled script.\n---\n# Filling forms\n\nRun scripts/fill.py.\n"

func TestFind(t *testing.T) {
	tests := []struct {
		name    string
		root    map[string]string
		global  map[string]string
		toggles map[string]bool
		// want is "ID name=description|problem" per skill, "(off)" when disabled.
		want []string
	}{
		{name: "none"},
		{
			name: "all places, precedence order, folders sorted",
			root: map[string]string{
				".claude/skills/pdf/SKILL.md":         pdfSkill,
				".claude/skills/pdf/scripts/fill.py":  "print()",
				".cairn/skills/b/SKILL.md":            "---\nname: b\ndescription: second\n---\nB",
				".cairn/skills/a/SKILL.md":            "---\nname: a\ndescription: first\n---\nA",
				".clinerules/skills/lint/SKILL.md":    "---\nname: lint\ndescription: Lint it\n---\nL",
				".cairn/skills/not-a-skill/README.md": "no SKILL.md here",
				".cairn/skills/.hidden/SKILL.md":      "---\nname: h\ndescription: h\n---\n",
			},
			global: map[string]string{"release/SKILL.md": "---\nname: release\ndescription: Cut a release\n---\nR"},
			want: []string{
				"cairn:.cairn/skills/a a=first", "cairn:.cairn/skills/b b=second",
				"clinerules:.clinerules/skills/lint lint=Lint it",
				"claude:.claude/skills/pdf pdf-forms=Fill in PDF forms with the bundled script.",
				"global:release release=Cut a release",
			},
		},
		{
			name: "bad input is listed with a problem, never dropped",
			root: map[string]string{
				".cairn/skills/nofm/SKILL.md":    "just text",
				".cairn/skills/nodesc/SKILL.md":  "---\nname: nodesc\n---\nbody",
				".cairn/skills/badyaml/SKILL.md": "---\nname: [x\n---\nbody",
				".cairn/skills/noname/SKILL.md":  "---\ndescription: named after its folder\n---\nbody",
				".cairn/skills/binary/SKILL.md":  "---\x00",
			},
			want: []string{
				"cairn:.cairn/skills/badyaml badyaml=|the frontmatter is not valid YAML",
				"cairn:.cairn/skills/binary binary=|SKILL.md is not a text file",
				"cairn:.cairn/skills/nodesc nodesc=|the frontmatter has no description",
				"cairn:.cairn/skills/nofm nofm=|SKILL.md has no frontmatter",
				"cairn:.cairn/skills/noname noname=named after its folder",
			},
		},
		{
			name: "duplicate names: the first place wins",
			root: map[string]string{
				".cairn/skills/x/SKILL.md":  "---\nname: deploy\ndescription: ours\n---\n",
				".claude/skills/y/SKILL.md": "---\nname: deploy\ndescription: theirs\n---\n",
			},
			global: map[string]string{"deploy/SKILL.md": "---\nname: deploy\ndescription: global\n---\n"},
			want: []string{
				"cairn:.cairn/skills/x deploy=ours",
				`claude:.claude/skills/y deploy=theirs|another skill named "deploy" (cairn:.cairn/skills/x) takes precedence`,
				`global:deploy deploy=global|another skill named "deploy" (cairn:.cairn/skills/x) takes precedence`,
			},
		},
		{
			name: "a disabled skill leaves its name to the next one",
			root: map[string]string{
				".cairn/skills/x/SKILL.md":  "---\nname: deploy\ndescription: ours\n---\n",
				".claude/skills/y/SKILL.md": "---\nname: deploy\ndescription: theirs\n---\n",
			},
			toggles: map[string]bool{"cairn:.cairn/skills/x": false},
			want:    []string{"cairn:.cairn/skills/x deploy=ours (off)", "claude:.claude/skills/y deploy=theirs"},
		},
		{
			name: "a skills file where a folder belongs",
			root: map[string]string{".cairn/skills": "oops"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, global := t.TempDir(), t.TempDir()
			writeTree(t, root, tt.root)
			writeTree(t, global, tt.global)
			all, err := Find(root, global, tt.toggles)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range all {
				line := s.ID + " " + s.Name + "=" + s.Description
				if s.Problem != "" {
					line += "|" + s.Problem
				}
				if !s.Enabled {
					line += " (off)"
				}
				got = append(got, line)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("skill %d = %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
			for _, s := range Usable(all) {
				if !s.Enabled || s.Problem != "" {
					t.Errorf("Usable kept %s", s.ID)
				}
			}
		})
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".claude/skills/pdf/SKILL.md":          strings.ReplaceAll(pdfSkill, "\n", "\r\n"),
		".claude/skills/pdf/scripts/fill.py":   "print()",
		".claude/skills/pdf/reference.md":      "ref",
		".claude/skills/pdf/.cache/x":          "hidden",
		".claude/skills/pdf/templates/form.md": "t",
	})
	all, err := Find(root, "", nil)
	if err != nil || len(all) != 1 {
		t.Fatalf("Find = %v, %v", all, err)
	}
	l, err := all[0].Load()
	if err != nil {
		t.Fatal(err)
	}
	if l.Body != "# Filling forms\n\nRun scripts/fill.py." {
		t.Errorf("body = %q", l.Body)
	}
	var rel []string
	for _, f := range l.Files {
		r, _ := filepath.Rel(l.Dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	if want := []string{"reference.md", "scripts/fill.py", "templates/form.md"}; !slices.Equal(rel, want) {
		t.Errorf("files = %q, want %q", rel, want)
	}
	if l.MoreFiles || l.Truncated {
		t.Errorf("MoreFiles %v Truncated %v", l.MoreFiles, l.Truncated)
	}
}
