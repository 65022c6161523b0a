package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

type fakeUI struct {
	approve   bool
	approvals []tools.Approval
	says      []msg.Kind
}

func (u *fakeUI) Approve(_ context.Context, req tools.Approval) (tools.Answer, error) {
	u.approvals = append(u.approvals, req)
	return tools.Answer{Approved: u.approve}, nil
}

func (u *fakeUI) Ask(context.Context, msg.Kind, string, msg.Payload) (tools.Answer, error) {
	return tools.Answer{}, nil
}

func (u *fakeUI) Say(_ context.Context, kind msg.Kind, _ string, _ msg.Payload, _ bool) {
	u.says = append(u.says, kind)
}

func TestRunGolden(t *testing.T) {
	root := t.TempDir()
	writeCorpus(t, root)
	if err := os.WriteFile(filepath.Join(root, ".cairnignore"), []byte("pkg/errs/timeout.go\nsecret/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		params    map[string]string
		reject    bool
		wantError bool
		wantSay   msg.Kind
	}{
		{name: "func_main", params: map[string]string{"path": ".", "regex": "func main"}},
		{name: "subfolder_glob", params: map[string]string{"path": "pkg", "regex": "(?i)deadline", "file_pattern": "*.go"}},
		{name: "merged_context", params: map[string]string{"path": "src", "regex": "deadline"}},
		{name: "no_match", params: map[string]string{"path": ".", "regex": "zzz_nothing"}},
		{name: "one_file", params: map[string]string{"path": "docs/notes.txt", "regex": "TODO"}},
		{name: "bad_regex", params: map[string]string{"path": ".", "regex": "(?<=x)y"}, wantError: true},
		{name: "bad_glob", params: map[string]string{"path": ".", "regex": "x", "file_pattern": "[a"}, wantError: true},
		{name: "blocked", params: map[string]string{"path": "secret", "regex": "x"}, wantError: true, wantSay: msg.SayIgnoreError},
		{name: "missing_regex", params: map[string]string{"path": "."}, wantError: true},
		{name: "missing_dir", params: map[string]string{"path": "nope", "regex": "x"}, wantError: true},
		{name: "rejected", params: map[string]string{"path": ".", "regex": "TODO"}, reject: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ui := &fakeUI{approve: !tc.reject}
			res, err := New().Run(context.Background(), &tools.Env{Files: ws, UI: ui}, tools.Call{Name: Name, Params: tc.params})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.wantError || res.Rejected != tc.reject {
				t.Errorf("IsError=%v Rejected=%v: %s", res.IsError, res.Rejected, res.Text)
			}
			if !tc.wantError {
				if len(ui.approvals) != 1 {
					t.Fatalf("approvals = %d", len(ui.approvals))
				}
				p, _ := ui.approvals[0].Payload.(*msg.Tool)
				if p == nil || p.Op != msg.OpSearchFiles || p.Regex != tc.params["regex"] || !ui.approvals[0].Inside {
					t.Errorf("approval payload = %+v", p)
				}
			} else if len(ui.approvals) != 0 {
				t.Error("asked approval for a failing call")
			}
			if tc.wantSay != "" && (len(ui.says) != 1 || ui.says[0] != tc.wantSay) {
				t.Errorf("says = %v", ui.says)
			}
			if strings.Contains(res.Text, "timeout.go") {
				t.Error("a file blocked by the user ignore file shows up")
			}
			golden.File(t, filepath.Join("testdata", tc.name+".golden"), res.Text)
		})
	}
}

func TestLimits(t *testing.T) {
	root := t.TempDir()
	// 40 files × 10 matches: the first 300 by path are kept, deterministically.
	for i := range 40 {
		var b strings.Builder
		for range 10 {
			b.WriteString("hit\n")
		}
		name := filepath.Join(root, "f"+itoa(100+i)+".txt")
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Search(context.Background(), root, Options{Regex: "hit", Context: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != DefaultMaxResults || !res.More || len(res.Files) != 30 {
		t.Fatalf("total=%d more=%v files=%d", res.Total, res.More, len(res.Files))
	}
	if last := filepath.Base(res.Files[29].Path); last != "f129.txt" {
		t.Errorf("last file = %s, want f129.txt", last)
	}
	out := res.Format(func(p string) string { return filepath.Base(p) })
	if !strings.HasPrefix(out, "Showing the first 300 results") {
		t.Errorf("header: %q", out[:60])
	}

	// Huge lines: the output stops at 0.25 MB with a note.
	big := strings.Repeat("needle ", 20000) + "\n"
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(root, "big"+itoa(i)+".txt"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err = Search(context.Background(), root, Options{Regex: "needle", Context: 1})
	if err != nil {
		t.Fatal(err)
	}
	out = res.Format(func(p string) string { return p })
	if len(out) > MaxOutputBytes+200 || !strings.HasSuffix(out, message("cut")) {
		t.Errorf("output %d bytes, suffix %q", len(out), out[max(0, len(out)-80):])
	}
}

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		re   string
		want string // "" when no prefilter
		fold bool
		pure bool
	}{
		{"func main", "func main", false, true},
		{`[A-Z][a-z]+Error\(`, "Error(", false, false},
		{"(?i)deadline", "deadline", true, true},
		{`(?i)dead\nline`, "dead\nline", true, false},
		{`(?i)dead\w+line`, "dead", true, false},
		{"foo|bar", "", false, false},
		{`(abc)+x`, "abc", false, false},
		{`a?bcd*`, "bc", false, false},
		{`\w+`, "", false, false},
		{"(?i)Straße", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.re, func(t *testing.T) {
			f := requiredLiteral(tc.re)
			if tc.want == "" {
				if f != nil {
					t.Errorf("got literal %q", f.lit)
				}
				return
			}
			if f == nil || string(f.lit) != tc.want || f.fold != tc.fold || f.pure != tc.pure {
				t.Errorf("got %+v", f)
			}
		})
	}
}
