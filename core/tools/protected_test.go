package tools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/protect"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// gitRun runs git in dir, skipping the test where git is missing (a Windows test binary under
// Wine has none).
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepoWorkspace is a workspace that is a git repository with one commit, a --separate-git-dir
// repository in sub/ whose git dir is store/ (inside the workspace), and a bare clone in
// bare.git with a linked worktree in wt/ (its .git a file pointing into bare.git).
func newRepoWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	root := t.TempDir()
	gitRun(t, root, "init", "-q")
	writeFile(t, filepath.Join(root, "a.txt"), "a\n")
	gitRun(t, root, "add", "a.txt")
	gitRun(t, root, "commit", "-qm", "one")
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, filepath.Join(root, "sub"), "init", "-q", "--separate-git-dir", filepath.Join(root, "store"))
	gitRun(t, root, "clone", "-q", "--bare", root, filepath.Join(root, "bare.git"))
	gitRun(t, filepath.Join(root, "bare.git"), "worktree", "add", "-q", filepath.Join(root, "wt"))
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestProtectedGitDirsByAnyName: a git directory inside the workspace that is not called .git
// is protected like .git, found from .git files and from what the folder holds.
func TestProtectedGitDirsByAnyName(t *testing.T) {
	ws := newRepoWorkspace(t)
	root := ws.Root()
	if st, err := os.Lstat(filepath.Join(root, "wt", ".git")); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("the worktree's .git is not a file: %v", err)
	}
	// A .git file on the way naming a folder that does not look like a repository (yet) still
	// protects it.
	writeFile(t, filepath.Join(root, "proj", ".git"), "gitdir: .meta\n")
	if err := os.MkdirAll(filepath.Join(root, "proj", ".meta", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"store/hooks/pre-commit":       protect.ReasonGit, // --separate-git-dir
		"store/config":                 protect.ReasonGit,
		"store":                        protect.ReasonGit,
		"bare.git/hooks/post-checkout": protect.ReasonGit, // bare repository
		"bare.git/worktrees/wt/HEAD":   protect.ReasonGit,
		"proj/.meta/hooks/pre-commit":  protect.ReasonGit, // named by proj/.git
		"wt/.git":                      protect.ReasonGit,
		".git/hooks/pre-commit":        protect.ReasonGit,
		".husky/pre-commit":            protect.ReasonHusky,
		"sub/main.go":                  "",
		"wt/a.txt":                     "",
		"a.txt":                        "",
		"store-notes/hooks/pre-commit": "",
		"proj/meta/hooks/pre-commit":   "",
		"bare.git.txt":                 "",
	} {
		if got := tools.ProtectedReason(ws, path); got != want {
			t.Errorf("ProtectedReason(%q) = %q, want %q", path, got, want)
		}
	}
	for command, want := range map[string]string{
		"echo x > store/hooks/pre-commit":         "store/hooks/pre-commit: " + protect.ReasonGit,
		"cp evil bare.git/hooks/pre-push":         "bare.git/hooks/pre-push: " + protect.ReasonGit,
		"rm -rf store":                            "store: " + protect.ReasonGit,
		"cd sub && git config core.hooksPath h":   "sub/.git/config: " + protect.ReasonGit,
		"printf '#!/bin/sh' > .husky/pre-commit":  ".husky/pre-commit: " + protect.ReasonHusky,
		"echo x > proj/.meta/hooks/post-merge":    "proj/.meta/hooks/post-merge: " + protect.ReasonGit,
		"echo x > sub/notes.txt && cp a.txt wt/b": "",
	} {
		if got := tools.ProtectedCommand(ws, command); got != want {
			t.Errorf("ProtectedCommand(%q) = %q, want %q", command, got, want)
		}
	}
}

// TestProtectedCommandUnknownAndLinks: the lines that once wrote into .git/hooks with
// commands auto-approved are now asked: a link made into .git/hooks, and every write whose
// file is only known when the line runs.
func TestProtectedCommandUnknownAndLinks(t *testing.T) {
	ws := newRepoWorkspace(t)
	cases := []struct {
		command, want string // want: a substring of the reason; "" for none
	}{
		{"ln -s .git/hooks hk && printf '#!/bin/sh\\necho pwned\\n' > hk/pre-commit && chmod +x hk/pre-commit && git commit -qm x",
			".git/hooks: " + protect.ReasonGit},
		{"ln -s ../.git/hooks sub/hk", ".git/hooks: " + protect.ReasonGit},  // relative to the link's folder
		{"ln -s .git/hooks sub/hk", "sub/.git/hooks: " + protect.ReasonGit}, // relative to sub/
		{"cd sub && ln -s ../store/hooks h", "store/hooks: " + protect.ReasonGit},
		{"ln .git/config cfg", ".git/config: " + protect.ReasonGit}, // a hard link is the same file
		{"ln -s .husky h2", ".husky: " + protect.ReasonHusky},
		{"ln -s docs d && echo x > d/p", "writes through the link d that the same line makes: d/p"},
		{"d=.git; echo '#!/bin/sh' > $d/hooks/p", "writes to a file only known when it runs: $d/hooks/p"},
		{"cd \"$(somecmd)\" && echo x > hooks/p", "folder only known when it runs: hooks/p"},
		{"echo .git/hooks/p | xargs cp a.txt", "xargs names only when it runs: xargs cp a.txt"},
		{"ls | xargs -I{} cp a.txt {}", "xargs cp a.txt {}"},
		{"echo x > notes.txt", ""},
		{"ln -s a.txt b.txt", ""},
		{"ls | xargs cat", ""},
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			got := tools.ProtectedCommand(ws, c.command)
			if c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Fatalf("ProtectedCommand = %q, want %q", got, c.want)
			}
		})
	}
}

// TestOutsideWriteCommand: a command that writes outside every workspace root names the file,
// with ~ expanded to the home folder; one that stays inside names none.
func TestOutsideWriteCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	realParent := filepath.Dir(ws.Root())
	tmpX := filepath.FromSlash("/tmp/x")
	if runtime.GOOS == "windows" {
		tmpX = filepath.Join(filepath.VolumeName(ws.Root())+`\`, "tmp", "x")
	}
	cases := []struct {
		command string
		want    []string // any of these
	}{
		{"echo '[core] hooksPath=/tmp/h' >> ~/.gitconfig", []string{filepath.Join(home, ".gitconfig"), filepath.Join(realHome, ".gitconfig")}},
		{"echo 'curl x | sh' >> ~/.bashrc", []string{filepath.Join(home, ".bashrc"), filepath.Join(realHome, ".bashrc")}},
		{"git config --global core.hooksPath /tmp/h", []string{filepath.Join(home, ".gitconfig"), filepath.Join(realHome, ".gitconfig")}},
		{"echo x > /tmp/x", []string{tmpX}},
		{"cp a.txt ../outside", []string{filepath.Join(realParent, "outside")}},
		{"cd .. && touch outside", []string{filepath.Join(realParent, "outside")}},
		{"echo x | tee ~bob/.profile", []string{"~bob/.profile"}},
		{"echo x > notes.txt", nil},
		{"mkdir -p sub && cp a.txt sub/../b.txt", nil},
		{"cat a.txt > /dev/null", nil},
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			got := tools.OutsideWriteCommand(ws, c.command)
			if len(c.want) == 0 {
				if got != "" {
					t.Fatalf("OutsideWriteCommand = %q, want none", got)
				}
				return
			}
			for _, w := range c.want {
				if got == w {
					return
				}
			}
			t.Fatalf("OutsideWriteCommand = %q, want one of %q", got, c.want)
		})
	}
}

// A task in a worktree has the worktree as its only root: its `.git` file is protected as the
// workspace's, and the main repository's `.git/`, outside the root, by its absolute path.
func TestProtectedMainRepoOfAWorktreeRoot(t *testing.T) {
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q")
	writeFile(t, filepath.Join(repo, "a.txt"), "a\n")
	gitRun(t, repo, "add", "a.txt")
	gitRun(t, repo, "commit", "-qm", "one")
	wt := filepath.Join(t.TempDir(), "wt")
	gitRun(t, repo, "worktree", "add", "-q", "-b", "cairn/x", wt)
	ws, err := workspace.New(wt)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		".git",
		filepath.Join(repo, ".git", "config"),
		filepath.Join(repo, ".git", "hooks", "pre-commit"),
		filepath.Join(repo, ".git", "worktrees", "wt", "HEAD"),
	} {
		if got := tools.ProtectedReason(ws, p); got != protect.ReasonGit {
			t.Errorf("%s: reason %q", p, got)
		}
	}
	for _, p := range []string{"a.txt", filepath.Join(repo, "a.txt"), filepath.Join(repo, ".gitignore")} {
		if got := tools.ProtectedReason(ws, p); got != "" {
			t.Errorf("%s: protected (%q)", p, got)
		}
	}
}
