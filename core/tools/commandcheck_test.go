package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

func TestCommandCaution(t *testing.T) {
	root := t.TempDir()
	gitRun(t, root, "init", "-q")
	writeFile(t, filepath.Join(root, "a.txt"), "a\n")
	gitRun(t, root, "add", "a.txt")
	gitRun(t, root, "commit", "-qm", "one")
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// A clean repository: nothing argues against a read-only git line.
	for _, line := range []string{"git status", "git log -p", "ls", "git -C . diff"} {
		if why := tools.CommandCaution(ctx, ws, line); why != "" {
			t.Errorf("%q in a clean repository: caution %q", line, why)
		}
	}
	// cd - is read-only (every word literal), but goes to a folder only known when it runs.
	if why := tools.CommandCaution(ctx, ws, "cd - && git status"); !strings.Contains(why, "only known when the line runs") {
		t.Errorf("git in a computed folder: caution %q", why)
	}

	// A config that makes git run a program: git status would run it.
	gitRun(t, root, "config", "core.fsmonitor", "touch PWNED")
	if why := tools.CommandCaution(ctx, ws, "git status"); !strings.Contains(why, "core.fsmonitor") {
		t.Errorf("fsmonitor config: caution %q", why)
	}
	if why := tools.CommandCaution(ctx, ws, "ls -la"); why != "" {
		t.Errorf("ls is not git: caution %q", why)
	}
	gitRun(t, root, "config", "--unset", "core.fsmonitor")

	// A planted bare repository the line cds into is judged by its own config.
	bare := filepath.Join(root, "fx")
	gitRun(t, root, "init", "-q", "--bare", bare)
	f, err := os.OpenFile(filepath.Join(bare, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[core]\n\tfsmonitor = touch PWNED\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if why := tools.CommandCaution(ctx, ws, "cd fx && git status"); !strings.Contains(why, "fsmonitor") {
		t.Errorf("bare repo with fsmonitor: caution %q", why)
	}

	// Submodules: git status goes into each and follows its own configuration, which is
	// files in the workspace (README, Security: safe commands).
	writeFile(t, filepath.Join(root, ".gitmodules"), "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n")
	for _, line := range []string{"git status", "git -C . diff", "cd fx/.. && git log --oneline"} {
		if why := tools.CommandCaution(ctx, ws, line); !strings.Contains(why, "submodules") {
			t.Errorf("%q with .gitmodules: caution %q", line, why)
		}
	}
	if err := os.Remove(filepath.Join(root, ".gitmodules")); err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(root, ".git", "modules", "sub")
	if err := os.MkdirAll(modules, 0o755); err != nil {
		t.Fatal(err)
	}
	if why := tools.CommandCaution(ctx, ws, "git status"); !strings.Contains(why, "submodules") {
		t.Errorf("git status with .git/modules: caution %q", why)
	}
	if why := tools.CommandCaution(ctx, ws, "ls -la"); why != "" {
		t.Errorf("ls in a repository with submodules: caution %q", why)
	}
	if err := os.RemoveAll(filepath.Join(root, ".git", "modules")); err != nil {
		t.Fatal(err)
	}

	// A tracked file the ignore file hides: git output that prints contents could show it.
	writeFile(t, filepath.Join(root, ".env"), "KEY=secret\n")
	gitRun(t, root, "add", ".env")
	gitRun(t, root, "commit", "-qm", "env")
	writeFile(t, filepath.Join(root, ".cairnignore"), ".env\n")
	ws2, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"git log -p", "git show HEAD", "git grep KEY", "git diff HEAD~1"} {
		if why := tools.CommandCaution(ctx, ws2, line); !strings.Contains(why, ".env") {
			t.Errorf("%q with a tracked ignored file: caution %q", line, why)
		}
	}
	if why := tools.CommandCaution(ctx, ws2, "git log --oneline"); why != "" {
		t.Errorf("git log --oneline prints no contents: caution %q", why)
	}
}

func TestCommandReadsOutside(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := t.TempDir()
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"cat ~/.ssh/id_rsa":       true,
		"cat /etc/passwd":         true,
		"ls ..":                   true,
		"cat README.md":           false,
		"grep -rn TODO src":       false,
		"cd src && cat main.go":   false,
		"head -n 3 ../other/x.go": true,
	}
	for line, want := range cases {
		got := tools.CommandReadsOutside(ws, line)
		if (got != "") != want {
			t.Errorf("%q: reads outside %q, want outside=%v", line, got, want)
		}
	}
}
