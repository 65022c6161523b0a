package envdetails

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithoutCredentials(t *testing.T) {
	cases := map[string]string{
		"https://me:ghp_secret@github.com/a/b.git": "https://github.com/a/b.git",
		"https://token@gitlab.com/a/b":             "https://gitlab.com/a/b",
		"git@github.com:a/b.git":                   "git@github.com:a/b.git",
		"ssh://git@host/a/b.git":                   "ssh://git@host/a/b.git",
		"/srv/repos/b.git":                         "/srv/repos/b.git",
	}
	for in, want := range cases {
		if got := withoutCredentials(in); got != want {
			t.Errorf("withoutCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWorkspaceConfigWithGit runs the real git: branch, remotes without credentials, project
// files without the ones the ignore file blocks.
func TestWorkspaceConfigWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"package.json": "{}\n", "Dockerfile": "FROM x\n", ".cairnignore": "Dockerfile\n"})
	for _, args := range [][]string{
		{"init", "-q", "-b", "feature/env"},
		{"remote", "add", "origin", "https://bot:s3cret@example.com/team/app.git"},
		{"remote", "add", "upstream", "git@example.com:up/app.git"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ws := newWorkspace(t, dir)
	got := workspaceConfig(context.Background(), ws)
	want := `{"name":"` + filepath.Base(ws.Root()) + `","path":"` + ws.Root() + `","projectFiles":["package.json"],` +
		`"git":{"branch":"feature/env","remotes":{"origin":"https://example.com/team/app.git","upstream":"git@example.com:up/app.git"}}}`
	if !strings.Contains(got, want) {
		t.Errorf("workspaceConfig =\n%s\nwant the line\n%s", got, want)
	}
	if strings.Contains(got, "s3cret") {
		t.Error("a credential reached the model")
	}
}

func TestWorkspaceConfigOutsideGit(t *testing.T) {
	ws := newWorkspace(t, t.TempDir())
	if got := gitState(context.Background(), ws.Root()); got != nil {
		t.Errorf("gitState outside a repository = %+v, want nil", got)
	}
}
