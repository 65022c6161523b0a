package listfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/watch"
	"github.com/cairnhq/cairn/core/workspace"
)

// fakeUI records what the tool asked and said, and answers approvals with approve.
type fakeUI struct {
	approve   bool
	approvals []tools.Approval
	says      []msg.Kind
}

func (u *fakeUI) Approve(_ context.Context, req tools.Approval) (tools.Answer, error) {
	u.approvals = append(u.approvals, req)
	return tools.Answer{Approved: u.approve, Text: map[bool]string{false: "not now"}[u.approve]}, nil
}

func (u *fakeUI) Ask(context.Context, msg.Kind, string, msg.Payload) (tools.Answer, error) {
	return tools.Answer{}, nil
}

func (u *fakeUI) Say(_ context.Context, kind msg.Kind, _ string, _ msg.Payload, _ bool) {
	u.says = append(u.says, kind)
}

// project is the tree every case lists.
func project(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		".gitignore":               "*.log\ncoverage/\n",
		".cairnignore":             "secrets/\n",
		".env":                     "",
		".git/HEAD":                "",
		".github/workflows/ci.yml": "",
		".github/.hidden/x":        "",
		"README.md":                "",
		"app.log":                  "",
		"coverage/index.html":      "",
		"node_modules/m/index.js":  "",
		"secrets/key.pem":          "",
		"src/main.go":              "",
		"src/file2.go":             "",
		"src/file10.go":            "",
		"src/build/gen.go":         "",
		"src/pkg/util/util.go":     "",
		"Docs/guide.md":            "",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 250 {
		p := filepath.Join(root, "many", fmt.Sprintf("f%03d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestRunGolden(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // the home folder on Windows
	fsRoot := filepath.VolumeName(home) + string(filepath.Separator)
	tests := []goldenCase{
		{name: "top_level", params: map[string]string{"path": "."}, wantOp: msg.OpListFilesTopLevel},
		{name: "recursive_src", params: map[string]string{"path": "src", "recursive": "true"}, wantOp: msg.OpListFilesRecursive},
		{name: "recursive_hidden_target", params: map[string]string{"path": ".github", "recursive": "TRUE"}, wantOp: msg.OpListFilesRecursive},
		{name: "recursive_truncated", params: map[string]string{"path": ".", "recursive": "true"}, wantOp: msg.OpListFilesRecursive},
		{name: "blocked", params: map[string]string{"path": "secrets/"}, wantSay: msg.SayIgnoreError, wantError: true},
		{name: "missing", params: map[string]string{"path": "nope"}, wantError: true},
		{name: "root_refused", params: map[string]string{"path": fsRoot, "recursive": "true"}, wantError: true},
		{name: "home_refused", params: map[string]string{"path": home, "recursive": "true"}, wantError: true},
		{name: "no_path", params: map[string]string{}, wantError: true},
		{name: "rejected", params: map[string]string{"path": "src"}, reject: true, wantOp: msg.OpListFilesTopLevel},
	}
	root := project(t)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range listTools(t, ws) {
		for _, tc := range tests {
			t.Run(tool.name+"/"+tc.name, func(t *testing.T) {
				runGolden(t, tool.tool, ws, tc, home, fsRoot)
			})
		}
	}
}

// listTools returns list_files reading the disk, and reading the daemon's file lists of
// ws's roots (held open until the test ends): every listing must be the same from both.
func listTools(t *testing.T, ws *workspace.Workspace) []struct {
	name string
	tool *Tool
} {
	t.Helper()
	hub := watch.New()
	t.Cleanup(func() {
		if err := hub.Close(); err != nil {
			t.Error(err)
		}
	})
	lists := workspace.NewLists(hub)
	t.Cleanup(lists.Close)
	for _, r := range ws.Roots() {
		fl, err := lists.Open(context.Background(), r.Path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(fl.Release)
	}
	return []struct {
		name string
		tool *Tool
	}{{"disk", New(nil)}, {"lists", New(lists)}}
}

// goldenCase is one list_files call and what it must do; its text is testdata/NAME.golden.
type goldenCase struct {
	name      string
	params    map[string]string
	reject    bool
	wantOp    msg.ToolOp // "" when no approval must be asked
	wantSay   msg.Kind
	wantError bool
}

func runGolden(t *testing.T, tool *Tool, ws *workspace.Workspace, tc goldenCase, home, fsRoot string) {
	t.Helper()
	ui := &fakeUI{approve: !tc.reject}
	env := &tools.Env{Files: ws, UI: ui}
	res, err := tool.Run(context.Background(), env, tools.Call{Name: Name, Params: tc.params})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError != tc.wantError {
		t.Errorf("IsError = %v, want %v (%s)", res.IsError, tc.wantError, res.Text)
	}
	if res.Rejected != tc.reject {
		t.Errorf("Rejected = %v", res.Rejected)
	}
	if tc.reject && res.UserFeedback != "not now" {
		t.Errorf("feedback lost: %q", res.UserFeedback)
	}
	switch {
	case tc.wantOp == "" && len(ui.approvals) != 0:
		t.Errorf("asked approval for a failing call")
	case tc.wantOp != "":
		if len(ui.approvals) != 1 {
			t.Fatalf("approvals = %d", len(ui.approvals))
		}
		a := ui.approvals[0]
		p, _ := a.Payload.(*msg.Tool)
		if a.Ask != msg.AskTool || a.Category != tools.CategoryRead || !a.Inside || p == nil || p.Op != tc.wantOp {
			t.Errorf("approval = %+v payload %+v", a, p)
		}
		if !tc.reject && p.Content != res.Text {
			t.Errorf("approval shows different content from the result")
		}
	}
	if tc.wantSay != "" && (len(ui.says) != 1 || ui.says[0] != tc.wantSay) {
		t.Errorf("says = %v, want %v", ui.says, tc.wantSay)
	}
	text := strings.ReplaceAll(res.Text, home, "$HOME")
	text = strings.ReplaceAll(text, filepath.ToSlash(home), "$HOME")
	if tc.name == "root_refused" {
		text = strings.ReplaceAll(text, filepath.ToSlash(fsRoot), "/") // `C:/` on Windows
	}
	golden.File(t, filepath.Join("testdata", tc.name+".golden"), text)
}

func TestListFlatLimit(t *testing.T) {
	root := project(t)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	entries, truncated, err := List(context.Background(), ws, filepath.Join(root, "many"), false, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !truncated || len(entries) != 10 || entries[0] != "f000.txt" {
		t.Errorf("entries=%q truncated=%v", entries, truncated)
	}
}

func TestCompareListing(t *testing.T) {
	tests := []struct {
		a, b string
		less bool
	}{
		{"b.txt", "a/", true},         // files before folders at a level
		{"a/", "a/x.go", true},        // a folder before its content
		{"a/x.go", "b.txt", false},    // the folder's content stays with it
		{"f2.go", "f10.go", true},     // numbers by value
		{"Alpha.go", "beta.go", true}, // case-insensitive
		{"a/z.go", "a/sub/", true},    // files first inside folders too
	}
	for _, tc := range tests {
		t.Run(tc.a+" "+tc.b, func(t *testing.T) {
			if got := compareListing(tc.a, tc.b) < 0; got != tc.less {
				t.Errorf("compare(%q, %q) < 0 = %v", tc.a, tc.b, got)
			}
		})
	}
}
