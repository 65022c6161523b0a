package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/internal/wine"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// protectedWorkspace is a workspace with a git folder, a link into it and ordinary files.
func protectedWorkspace(t *testing.T) tools.Files {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".git/hooks", "src", "sub/.git", "build"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", "src/main.go", "README.md", "build/out.o"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, ".git", "hooks"), filepath.Join(root, "hooks-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git/config", filepath.Join(root, "cfg")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestProtectedWrites checks every protected pattern in its tool form (write_to_file,
// replace_in_file: the path) and its command form, under a policy that auto-approves edits
// and all commands: protected writes ask, and run only with the protected category or YOLO;
// ordinary writes still run.
func TestProtectedWrites(t *testing.T) {
	files := protectedWorkspace(t)
	edits := config.Default().AutoApprove
	edits.EditFiles, edits.AllCommands = true, true
	withProtected := edits
	withProtected.Protected = true
	yolo := config.Default().AutoApprove
	yolo.YOLO = true
	policies := []struct {
		name string
		p    config.AutoApprove
	}{{"edit+command", edits}, {"protected", withProtected}, {"yolo", yolo}}

	cases := []struct {
		form, target string
		want         string // per policy: edit+command/protected/yolo
	}{
		// tool form: the path given to write_to_file / replace_in_file
		{"tool", ".git/hooks/pre-commit", "ask/run/run"},
		{"tool", ".git/config", "ask/run/run"},
		{"tool", "hooks-link/pre-commit", "ask/run/run"}, // a symlink into .git/
		{"tool", "cfg", "ask/run/run"},                   // a symlink to .git/config
		{"tool", "sub/.git/config", "ask/run/run"},
		{"tool", ".clinerules/hooks/PreToolUse", "ask/run/run"},
		{"tool", ".cairnrules/a.md", "ask/run/run"},
		{"tool", ".cairn/hooks/x", "ask/run/run"},
		{"tool", ".cursor/rules/r.mdc", "ask/run/run"},
		{"tool", ".claude/settings.json", "ask/run/run"},
		{"tool", ".vscode/settings.json", "ask/run/run"},
		{"tool", "web/.vscode/tasks.json", "ask/run/run"},
		{"tool", ".clineignore", "ask/run/run"},
		{"tool", ".cairnignore", "ask/run/run"},
		{"tool", "AGENTS.md", "ask/run/run"},
		{"tool", "docs/AGENTS.md", "ask/run/run"},
		{"tool", ".cursorrules", "ask/run/run"},
		{"tool", ".windsurfrules", "ask/run/run"},
		{"tool", "src/main.go", "run/run/run"},
		{"tool", "README.md", "run/run/run"},
		{"tool", ".github/workflows/ci.yml", "run/run/run"},
		{"tool", ".gitignore", "run/run/run"},
		// command form
		{"command", "echo x > .git/hooks/post-checkout", "ask/run/run"},
		{"command", "echo x >> hooks-link/pre-push", "ask/run/run"},
		{"command", "git config core.hooksPath .evil-hooks", "ask/run/run"},
		{"command", "git -C sub config user.name x", "ask/run/run"},
		{"command", "echo '{}' | tee .vscode/settings.json", "ask/run/run"},
		{"command", "cp evil.sh .git/hooks/pre-commit", "ask/run/run"},
		{"command", "mv rules.md .clinerules", "ask/run/run"},
		{"command", "install -m 755 h .cairn/hooks/h", "ask/run/run"},
		{"command", "ln -sf /tmp/evil .git/hooks/pre-commit", "ask/run/run"},
		{"command", "cp x/AGENTS.md .", "ask/run/run"},
		{"command", "chmod +x .git/hooks/pre-commit", "ask/run/run"},
		{"command", "chown me .cursorrules", "ask/run/run"},
		{"command", "rm .clineignore", "ask/run/run"},
		{"command", "rm -r sub", "ask/ask/ask"}, // rm -r is on the deny list as rm -rf
		{"command", "rm .git/hooks/*", "ask/run/run"},
		{"command", "sed -i s/a/b/ .cairnignore", "ask/run/run"},
		{"command", "perl -pi -e s/a/b/ .windsurfrules", "ask/run/run"},
		{"command", "mkdir -p .claude/commands", "ask/run/run"},
		{"command", "cd .cursor && echo r > rules/a.mdc", "ask/run/run"},
		{"command", "bash -c 'echo x > .vscode/tasks.json'", "ask/run/run"},
		{"command", "echo hi > src/notes.txt", "run/run/run"},
		{"command", "cp README.md docs/", "run/run/run"},
		{"command", "rm build/out.o", "run/run/run"},
		{"command", "chmod +x src/run.sh", "run/run/run"},
		{"command", "sed -i s/a/b/ src/main.go", "run/run/run"},
		{"command", "git config --get core.hooksPath", "run/run/run"},
		{"command", "git status", "run/run/run"},
	}
	for _, c := range cases {
		if (strings.Contains(c.target, "hooks-link") || c.target == "cfg") && wine.Detected() {
			t.Run(c.form+"/"+c.target, func(t *testing.T) { wine.Skip(t, wine.Symlinks) })
			continue
		}
		var req tools.Approval
		if c.form == "tool" {
			abs, inside, err := files.Resolve(c.target)
			if err != nil {
				t.Fatalf("%s: %v", c.target, err)
			}
			req = tools.Approval{Category: tools.CategoryEdit, Path: abs, Inside: inside,
				Protected: tools.ProtectedReason(files, c.target)}
		} else {
			req = tools.Approval{Category: tools.CategoryCommand, Command: c.target,
				Protected: tools.ProtectedCommand(files, c.target)}
		}
		want := strings.Split(c.want, "/")
		if (req.Protected != "") != (want[0] == "ask") {
			t.Errorf("%s %q: protected reason %q", c.form, c.target, req.Protected)
		}
		for i, pol := range policies {
			t.Run(c.form+"/"+pol.name+"/"+c.target, func(t *testing.T) {
				got := "ask"
				if autoApproved(pol.p, req) {
					got = "run"
				}
				if got != want[i] {
					t.Fatalf("%s %q under %s: %s, want %s (reason %q)", c.form, c.target, pol.name, got, want[i], req.Protected)
				}
			})
		}
	}
}
