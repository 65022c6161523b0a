package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTree creates files under dir: key = slash path, value = content. A key ending in "/"
// creates an empty folder.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// summary is "ID=content|enabled" per rule, to compare whole results in one string.
func summary(rs []Rule) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		s := r.ID + "=" + r.Content
		if !r.Enabled {
			s += " (off)"
		}
		out = append(out, s)
	}
	return out
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		root    map[string]string
		global  map[string]string
		toggles map[string]bool
		want    []string
	}{
		{
			name: "nothing anywhere",
			want: []string{},
		},
		{
			name: "clinerules file",
			root: map[string]string{".clinerules": "  use tabs \n"},
			want: []string{"clinerules:.clinerules=use tabs"},
		},
		{
			name: "clinerules folder recursive sorted without workflows hidden or binary",
			root: map[string]string{
				".clinerules/b.md":               "b",
				".clinerules/a.md":               "a",
				".clinerules/sub/c.txt":          "c",
				".clinerules/workflows/rel.md":   "not a rule",
				".clinerules/sub/workflows/w.md": "nested workflows folder is a rule folder",
				".clinerules/.hidden.md":         "hidden",
				".clinerules/.git/x":             "hidden dir",
				".clinerules/logo.png":           "\x89PNG\x00\x01",
			},
			want: []string{
				"clinerules:.clinerules/a.md=a",
				"clinerules:.clinerules/b.md=b",
				"clinerules:.clinerules/sub/c.txt=c",
				"clinerules:.clinerules/sub/workflows/w.md=nested workflows folder is a rule folder",
			},
		},
		{
			name: "cairnrules folder, BOM and CRLF normalised",
			root: map[string]string{".cairnrules/go.md": "\uFEFFgo\r\nrules\r\n"},
			want: []string{"cairnrules:.cairnrules/go.md=go\nrules"},
		},
		{
			name: "cursorrules file",
			root: map[string]string{".cursorrules": "cursor"},
			want: []string{"cursorrules:.cursorrules=cursor"},
		},
		{
			name: "cursorrules as a folder is not a source",
			root: map[string]string{".cursorrules/x.md": "x"},
			want: []string{},
		},
		{
			name: "cursor rules folder keeps only mdc, recursively",
			root: map[string]string{
				".cursor/rules/a.mdc":      "---\nalwaysApply: true\n---\nA",
				".cursor/rules/b.md":       "not mdc",
				".cursor/rules/x/y.mdc":    "Y",
				".cursor/settings.json":    "{}",
				".cursor/rules/workflows/": "",
			},
			want: []string{
				"cursor-rules:.cursor/rules/a.mdc=A", // the frontmatter is read, not shown
				"cursor-rules:.cursor/rules/x/y.mdc=Y",
			},
		},
		{
			name: "windsurfrules file",
			root: map[string]string{".windsurfrules": "wind"},
			want: []string{"windsurfrules:.windsurfrules=wind"},
		},
		{
			name:   "global folder recursive",
			global: map[string]string{"z.md": "z", "team/a.md": "a", ".DS_Store": "junk"},
			want:   []string{"global:team/a.md=a", "global:z.md=z"},
		},
		{
			name: "every source in fixed order, toggles applied",
			root: map[string]string{
				".windsurfrules":      "w",
				".cursorrules":        "c",
				".cursor/rules/r.mdc": "m",
				".cairnrules":         "k",
				".clinerules/x.md":    "x",
			},
			global:  map[string]string{"g.md": "g"},
			toggles: map[string]bool{"cursorrules:.cursorrules": false, "global:g.md": true},
			want: []string{
				"global:g.md=g",
				"clinerules:.clinerules/x.md=x",
				"cairnrules:.cairnrules=k",
				"cursorrules:.cursorrules=c (off)",
				"cursor-rules:.cursor/rules/r.mdc=m",
				"windsurfrules:.windsurfrules=w",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, global := t.TempDir(), t.TempDir()
			writeTree(t, root, tt.root)
			writeTree(t, global, tt.global)
			got, err := Load(root, global, tt.toggles)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if g, w := strings.Join(summary(got), "\n"), strings.Join(tt.want, "\n"); g != w {
				t.Errorf("rules:\n%s\nwant:\n%s", g, w)
			}
			for _, r := range got {
				base := root
				if r.Source == SourceGlobal {
					base = global
				}
				if want := filepath.Join(base, filepath.FromSlash(r.Name)); r.Path != want {
					t.Errorf("%s: Path = %s, want %s", r.ID, r.Path, want)
				}
			}
		})
	}
}

func TestLoadEmptyDirsAndMissing(t *testing.T) {
	got, err := Load("", "", nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Load(\"\", \"\") = %v, %v; want nothing", got, err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	got, err = Load(missing, missing, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Load(missing) = %v, %v; want nothing", got, err)
	}
}

func TestLoaderCache(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".clinerules")
	writeTree(t, root, map[string]string{".clinerules": "one"})
	stamp := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	l := NewLoader()
	content := func() string {
		t.Helper()
		rs, err := l.Load(root, "", nil)
		if err != nil || len(rs) != 1 {
			t.Fatalf("Load = %v, %v", rs, err)
		}
		return rs[0].Content
	}
	if got := content(); got != "one" {
		t.Fatalf("first read = %q", got)
	}

	// Same size and same mtime: the cached content is served (proves the file is not re-read).
	writeTree(t, root, map[string]string{".clinerules": "two"})
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	if got := content(); got != "one" {
		t.Fatalf("unchanged stat: got %q, want cached %q", got, "one")
	}

	// Same size, new mtime: re-read.
	later := stamp.Add(time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got := content(); got != "two" {
		t.Fatalf("after mtime change: got %q, want %q", got, "two")
	}

	// New size, same mtime: re-read.
	writeTree(t, root, map[string]string{".clinerules": "three"})
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got := content(); got != "three" {
		t.Fatalf("after size change: got %q, want %q", got, "three")
	}
}

func TestWorkflows(t *testing.T) {
	tests := []struct {
		name    string
		root    map[string]string
		global  map[string]string
		toggles map[string]bool
		want    []string // "ID|name|global|enabled=content"
	}{
		{name: "none", want: []string{}},
		{
			name: "clinerules workflows only top level, hidden and binary skipped",
			root: map[string]string{
				".clinerules/workflows/release.md":  "ship it",
				".clinerules/workflows/sub/deep.md": "nested",
				".clinerules/workflows/.x.md":       "hidden",
				".clinerules/workflows/img.png":     "\x00",
				".clinerules/rule.md":               "a rule, not a workflow",
			},
			want: []string{"workflow:.clinerules/workflows/release.md|release.md|false|true=ship it"},
		},
		{
			name:    "workspace hides global, cairnrules hides clinerules, sorted by name",
			root:    map[string]string{".clinerules/workflows/a.md": "cline a", ".cairnrules/workflows/a.md": "cairn a", ".clinerules/workflows/c.md": "c"},
			global:  map[string]string{"a.md": "global a", "b.md": "global b"},
			toggles: map[string]bool{"global-workflow:b.md": false},
			want: []string{
				"workflow:.cairnrules/workflows/a.md|a.md|false|true=cairn a",
				"global-workflow:b.md|b.md|true|false=global b",
				"workflow:.clinerules/workflows/c.md|c.md|false|true=c",
			},
		},
		{
			name:   "clinerules file means no workspace workflows",
			root:   map[string]string{".clinerules": "rule"},
			global: map[string]string{"g.md": "g"},
			want:   []string{"global-workflow:g.md|g.md|true|true=g"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, global := t.TempDir(), t.TempDir()
			writeTree(t, root, tt.root)
			writeTree(t, global, tt.global)
			ws, err := Workflows(root, global, tt.toggles)
			if err != nil {
				t.Fatalf("Workflows: %v", err)
			}
			got := []string{}
			for _, w := range ws {
				got = append(got, w.ID+"|"+w.Name+"|"+boolStr(w.Global)+"|"+boolStr(w.Enabled)+"="+w.Content)
				if filepath.Base(w.Path) != w.Name {
					t.Errorf("%s: Path %s does not end in %s", w.ID, w.Path, w.Name)
				}
			}
			if g, w := strings.Join(got, "\n"), strings.Join(tt.want, "\n"); g != w {
				t.Errorf("workflows:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestCreate(t *testing.T) {
	tests := []struct {
		name     string
		root     map[string]string
		global   bool
		ruleName string
		wantID   string
		wantErr  error
		// untouched lists root files that must keep their content.
		untouched map[string]string
	}{
		{name: "global", global: true, ruleName: "style", wantID: "global:style.md"},
		{name: "workspace without folders makes .cairnrules", ruleName: "go.md", wantID: "cairnrules:.cairnrules/go.md"},
		{name: "existing clinerules folder is used", root: map[string]string{".clinerules/": ""}, ruleName: "x.txt", wantID: "clinerules:.clinerules/x.txt"},
		{name: "cairnrules folder preferred", root: map[string]string{".clinerules/": "", ".cairnrules/": ""}, ruleName: "x", wantID: "cairnrules:.cairnrules/x.md"},
		{
			name: "clinerules file is left alone", root: map[string]string{".clinerules": "keep me"},
			ruleName: "x", wantID: "cairnrules:.cairnrules/x.md", untouched: map[string]string{".clinerules": "keep me"},
		},
		{
			name: "both files: no folder to use", root: map[string]string{".clinerules": "a", ".cairnrules": "b"},
			ruleName: "x", wantErr: ErrNoDir, untouched: map[string]string{".clinerules": "a", ".cairnrules": "b"},
		},
		{
			name: "existing rule is not overwritten", root: map[string]string{".cairnrules/x.md": "old"},
			ruleName: "x", wantErr: ErrExists, untouched: map[string]string{".cairnrules/x.md": "old"},
		},
		{name: "empty name", ruleName: " ", wantErr: ErrBadName},
		{name: "path separator", ruleName: "a/b.md", wantErr: ErrBadName},
		{name: "parent escape", ruleName: "..", wantErr: ErrBadName},
		{name: "hidden name", ruleName: ".secret", wantErr: ErrBadName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, global := t.TempDir(), t.TempDir()
			writeTree(t, root, tt.root)
			r, err := Create(root, global, tt.global, tt.ruleName, "\nbody\n\n")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Create err = %v, want %v", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				if r.ID != tt.wantID || r.Content != "body" || !r.Enabled {
					t.Errorf("Create = %+v, want ID %s, content body, enabled", r, tt.wantID)
				}
				data, err := os.ReadFile(r.Path)
				if err != nil || string(data) != "body\n" {
					t.Errorf("file = %q, %v; want %q", data, err, "body\n")
				}
				// What Create returns is what Load sees.
				all, err := Load(root, global, nil)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, l := range all {
					found = found || (l.ID == r.ID && l.Path == r.Path && l.Content == r.Content)
				}
				if !found {
					t.Errorf("Load does not list %+v: %v", r, summary(all))
				}
			}
			for rel, want := range tt.untouched {
				data, err := os.ReadFile(filepath.Join(root, rel))
				if err != nil || string(data) != want {
					t.Errorf("%s = %q, %v; want unchanged %q", rel, data, err, want)
				}
			}
		})
	}
}

func TestCreateNeedsFolder(t *testing.T) {
	if _, err := Create("", "", true, "x", "y"); !errors.Is(err, ErrNoDir) {
		t.Errorf("global without folder: %v", err)
	}
	if _, err := Create("", "", false, "x", "y"); !errors.Is(err, ErrNoDir) {
		t.Errorf("workspace without root: %v", err)
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name    string
		id      string
		wantErr error
		gone    string // root- or global-relative file that must be gone ("g/" prefix = global)
	}{
		{name: "workspace folder rule", id: "clinerules:.clinerules/a.md", gone: ".clinerules/a.md"},
		{name: "cursorrules file", id: "cursorrules:.cursorrules", gone: ".cursorrules"},
		{name: "global rule", id: "global:g.md", gone: "g/g.md"},
		{name: "unknown", id: "clinerules:.clinerules/zzz.md", wantErr: ErrUnknownID},
		{name: "workflow is not a rule", id: "clinerules:.clinerules/workflows/w.md", wantErr: ErrUnknownID},
		{name: "escape attempt", id: "clinerules:../outside.md", wantErr: ErrUnknownID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			root, global := filepath.Join(parent, "ws"), filepath.Join(parent, "g")
			writeTree(t, parent, map[string]string{
				"ws/.clinerules/a.md":           "a",
				"ws/.clinerules/workflows/w.md": "w",
				"ws/.cursorrules":               "c",
				"g/g.md":                        "g",
				"ws/../outside.md":              "outside",
			})
			before, _ := Load(root, global, nil)
			err := Delete(root, global, tt.id)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Delete err = %v, want %v", err, tt.wantErr)
				}
				after, _ := Load(root, global, nil)
				if len(after) != len(before) {
					t.Errorf("a failed Delete removed something: %v -> %v", summary(before), summary(after))
				}
				for _, keep := range []string{"outside.md", "ws/.clinerules/workflows/w.md"} {
					if _, err := os.Stat(filepath.Join(parent, keep)); err != nil {
						t.Errorf("%s: %v", keep, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Delete: %v", err)
			}
			gone := filepath.Join(root, tt.gone)
			if rest, ok := strings.CutPrefix(tt.gone, "g/"); ok {
				gone = filepath.Join(global, rest)
			}
			if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s still there (%v)", gone, err)
			}
			after, _ := Load(root, global, nil)
			if len(after) != len(before)-1 {
				t.Errorf("Delete removed %d rules, want 1", len(before)-len(after))
			}
		})
	}
}

// BenchmarkLoaderWarm measures the per-request cost of re-reading rules with a warm cache.
func BenchmarkLoaderWarm(b *testing.B) {
	root, global := b.TempDir(), b.TempDir()
	files := map[string]string{".cursorrules": "c", ".windsurfrules": "w"}
	for i := range 20 {
		files[".clinerules/r"+string(rune('a'+i))+".md"] = strings.Repeat("rule text\n", 50)
	}
	for dir, fs := range map[string]map[string]string{root: files, global: {"g1.md": "g", "g2.md": "g"}} {
		for rel, c := range fs {
			p := filepath.Join(dir, rel)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	l := NewLoader()
	for b.Loop() {
		if rs, err := l.Load(root, global, nil); err != nil || len(rs) != 24 {
			b.Fatalf("Load = %d rules, %v", len(rs), err)
		}
	}
}

// TestHookScriptsAreNotRules: the hook scripts in a rules folder's hooks/ are programs, never
// rules in the prompt.
func TestHookScriptsAreNotRules(t *testing.T) {
	root := t.TempDir()
	for p, body := range map[string]string{
		".clinerules/style.md":            "Use tabs.",
		".clinerules/hooks/PreToolUse":    "#!/bin/sh\necho '{}'\n",
		".cairnrules/hooks/TaskStart":     "#!/bin/sh\n",
		".clinerules/docs/hooks/notes.md": "Nested hooks folders are ordinary rules.",
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Load(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, filepath.ToSlash(r.Path))
	}
	got := strings.Join(names, ",")
	if strings.Contains(got, "PreToolUse") || strings.Contains(got, "TaskStart") || !strings.Contains(got, "style.md") ||
		!strings.Contains(got, "notes.md") {
		t.Errorf("rules = %v", names)
	}
}
