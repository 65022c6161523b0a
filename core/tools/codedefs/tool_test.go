package codedefs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// newWorkspace copies every testdata/lang file into <tmp>/src and adds files the tool must
// skip: a sub-folder, a text file, an ignored source file and a source file without
// definitions.
func newWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "src")
	must(t, os.MkdirAll(filepath.Join(src, "nested"), 0o755))
	entries, err := os.ReadDir("testdata/lang")
	must(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/lang", e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(src, e.Name()), data, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(src, "nested", "deep.go"), []byte("package deep\n\nfunc Deep() {}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(src, "README.txt"), []byte("class NotCode:\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(src, "secret.py"), []byte("def hidden():\n    pass\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(src, "constants.go"), []byte("package src\n\nconst Answer = 42\n"), 0o644))
	return root
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, files *toolstest.Files, ui *toolstest.UI, path string) tools.Result {
	t.Helper()
	env := &tools.Env{Files: files, UI: ui}
	call := tools.Call{Name: Name, Params: map[string]string{}}
	if path != "" {
		call.Params["path"] = path
	}
	res, err := New().Run(context.Background(), env, call)
	must(t, err)
	return res
}

// TestFolderGolden outlines a whole folder and compares with testdata/golden/folder.golden.
func TestFolderGolden(t *testing.T) {
	root := newWorkspace(t)
	files := &toolstest.Files{Dir: root, Ignore: []string{"src/secret.py"}}
	ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
	res := run(t, files, ui, "src")
	if res.IsError || res.Rejected {
		t.Fatalf("unexpected result %+v", res)
	}
	for _, bad := range []string{"deep.go", "README.txt", "secret.py", "hidden", "constants.go"} {
		if strings.Contains(res.Text, bad) {
			t.Errorf("output mentions %q, which must be skipped", bad)
		}
	}
	golden.File(t, "testdata/golden/folder.golden", res.Text+"\n")

	if len(ui.Approvals) != 1 {
		t.Fatalf("approvals = %d, want 1", len(ui.Approvals))
	}
	a := ui.Approvals[0]
	want := &msg.Tool{Op: msg.OpListCodeDefinitions, Path: "src", Content: res.Text}
	got, ok := a.Payload.(*msg.Tool)
	if a.Ask != msg.AskTool || a.Category != tools.CategoryRead || a.Path != filepath.Join(root, "src") || !a.Inside ||
		!ok || *got != *want {
		t.Errorf("approval = %+v payload %+v", a, a.Payload)
	}
}

func TestRunCases(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		ignore   []string
		answer   tools.Answer
		wantErr  bool
		wantRej  bool
		contains string
		wantSay  msg.Kind
		approved bool // an approval was requested
	}{
		{name: "missing path", path: "", wantErr: true, contains: "Missing value for required parameter 'path'"},
		{name: "unresolvable path", path: "bad:x", wantErr: true, contains: "unknown workspace root"},
		{name: "ignored folder", path: "src", ignore: []string{"src"}, wantErr: true, contains: "blocks access to src", wantSay: msg.SayIgnoreError},
		{name: "no such folder", path: "nope", wantErr: true, contains: "nope does not exist"},
		{name: "unsupported file", path: "src/README.txt", wantErr: true, contains: "no outline"},
		{name: "single file", path: "src/server.go", answer: tools.Answer{Approved: true}, contains: "server.go\n|----\n│type Store interface {", approved: true},
		{name: "folder without definitions", path: "src/nested/empty", answer: tools.Answer{Approved: true}, contains: NoDefinitions, approved: true},
		{name: "denied with feedback", path: "src", answer: tools.Answer{Text: "not now"}, wantRej: true, contains: "The user denied this operation.", approved: true},
	}
	root := newWorkspace(t)
	must(t, os.MkdirAll(filepath.Join(root, "src", "nested", "empty"), 0o755))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ui := &toolstest.UI{Answer: tt.answer}
			res := run(t, &toolstest.Files{Dir: root, Ignore: tt.ignore}, ui, tt.path)
			if res.IsError != tt.wantErr || res.Rejected != tt.wantRej {
				t.Fatalf("IsError=%v Rejected=%v, want %v %v: %q", res.IsError, res.Rejected, tt.wantErr, tt.wantRej, res.Text)
			}
			if !strings.Contains(res.Text, tt.contains) {
				t.Errorf("text %q does not contain %q", res.Text, tt.contains)
			}
			if tt.wantRej && res.UserFeedback != tt.answer.Text {
				t.Errorf("feedback = %q", res.UserFeedback)
			}
			if (len(ui.Approvals) == 1) != tt.approved {
				t.Errorf("approvals = %d, want approved=%v", len(ui.Approvals), tt.approved)
			}
			if tt.wantSay != "" && (len(ui.Says) != 1 || ui.Says[0].Kind != tt.wantSay) {
				t.Errorf("says = %+v, want one %s", ui.Says, tt.wantSay)
			}
		})
	}
}

func TestRunApproveError(t *testing.T) {
	root := newWorkspace(t)
	boom := errors.New("host gone")
	env := &tools.Env{Files: &toolstest.Files{Dir: root}, UI: &toolstest.UI{Err: boom}}
	_, err := New().Run(context.Background(), env, tools.Call{Name: Name, Params: map[string]string{"path": "src"}})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want wrapped %v", err, boom)
	}
}

// TestFolderCap checks that only the first MaxFiles source files (by name) are outlined.
func TestFolderCap(t *testing.T) {
	root := t.TempDir()
	for i := range MaxFiles + 5 {
		body := fmt.Sprintf("package p\n\nfunc F%02d() {}\n", i)
		must(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), []byte(body), 0o644))
	}
	res := run(t, &toolstest.Files{Dir: root}, &toolstest.UI{Answer: tools.Answer{Approved: true}}, ".")
	if got := strings.Count(res.Text, "│func"); got != MaxFiles {
		t.Errorf("outlined %d files, want %d", got, MaxFiles)
	}
	if !strings.Contains(res.Text, "f49.go") || strings.Contains(res.Text, "f50.go") {
		t.Errorf("wrong files kept:\n%s", res.Text)
	}
}

func TestSpec(t *testing.T) {
	s := New().Spec()
	if s.Name != Name || s.Category != tools.CategoryRead || !s.PlanSafe || s.ArgParam != "path" ||
		len(s.Params) != 1 || !s.Params[0].Required || s.Description == "" || s.Params[0].Description == "" {
		t.Errorf("spec = %+v", s)
	}
	for _, key := range []string{"path", "path_usage", "ignored", "not_found", "unsupported", "denied"} {
		if _, ok := messages.Sections()[key]; !ok {
			t.Errorf("messages.md lacks %q", key)
		}
	}
}
