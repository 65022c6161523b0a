package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/shellcmd"
)

// CommandReadsOutside returns the first file or folder a command Cairn reads as a reader (cat,
// ls, grep -r, git -C, …; see shellcmd.Script.FirstOutside) looks at outside every workspace
// root, or "". "Safe commands" then run the line only when reads outside the workspace are
// auto-approved, as for read_file (README, Security: safe commands).
func CommandReadsOutside(files Files, command string) string {
	if files == nil {
		return ""
	}
	script, err := shellcmd.Parse(command)
	if err != nil {
		return ""
	}
	abs, outside := script.FirstOutside(files.Root(), func(abs string) bool {
		_, inside, err := files.Resolve(abs)
		return err == nil && inside
	})
	if !outside {
		return ""
	}
	return abs
}

// gitListTimeout bounds the `git ls-files` that CommandCaution runs.
const gitListTimeout = 5 * time.Second

// CommandCaution says why a line Cairn's classification accepts as read-only must still not
// run as one in this workspace, or "":
//   - git runs in a folder only known when the line runs;
//   - the configuration of a repository a git command runs in names a program or points
//     elsewhere (core.fsmonitor runs on `git status`; see shellcmd.GitConfigHarmless);
//   - the repository has submodules (a .gitmodules file, or repositories under .git/modules):
//     git status and others go into each one and follow its own configuration, which a
//     submodule's files on disk can set (core.fsmonitor again);
//   - git prints file contents (show, log -p, diff, grep, blame) in a repository that tracks a
//     file the workspace's ignore file hides.
//
// Only lines that are read-only are looked at: every other line is asked anyway, unless the
// user auto-approves all commands.
func CommandCaution(ctx context.Context, files Files, command string) string {
	if files == nil {
		return ""
	}
	script, err := shellcmd.Parse(command)
	if err != nil || !script.ReadOnly() {
		return ""
	}
	dirs, known := script.GitDirs()
	if !known {
		return "git runs in a folder that is only known when the line runs"
	}
	for _, d := range dirs {
		abs := d
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(files.Root(), filepath.FromSlash(d))
		}
		gitDir, top := findGitDir(abs)
		if gitDir == "" {
			continue // not a repository: git reads no repository config there
		}
		if why := gitConfigCaution(files, gitDir); why != "" {
			return why
		}
		if why := submoduleCaution(files, gitDir, top); why != "" {
			return why
		}
		if script.GitPrintsContent() && hasIgnoreFile(files) {
			if why := trackedIgnored(ctx, files, abs); why != "" {
				return why
			}
		}
	}
	return ""
}

// findGitDir finds the repository git would use in dir, the way git looks for it: dir itself
// when it is a git directory, else the nearest `.git` folder or `gitdir:` file upwards. top is
// the folder holding that `.git` (the top of the work tree), "" for a bare repository.
func findGitDir(dir string) (gitDir, top string) {
	for cur := filepath.Clean(dir); ; {
		if isGitDir(cur) {
			return cur, ""
		}
		dotGit := filepath.Join(cur, ".git")
		if st, err := os.Stat(dotGit); err == nil && st.IsDir() {
			return dotGit, cur
		}
		if g := gitFileTarget(cur); g != "" {
			return g, cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", ""
		}
		cur = parent
	}
}

// submoduleCaution says why a repository with submodules is not read-only ground: git status,
// diff and others recurse into every submodule and run what its own configuration names, and a
// submodule's configuration is files in the workspace (README, Security: safe commands). It
// looks for .gitmodules at the top of the work tree and for the submodules' repositories that
// git keeps under .git/modules; either is enough.
func submoduleCaution(files Files, gitDir, top string) string {
	if top != "" {
		if _, err := os.Lstat(filepath.Join(top, ".gitmodules")); err == nil {
			return fmt.Sprintf("the repository at %s has submodules (%s), whose own configuration git follows too",
				files.Rel(top), files.Rel(filepath.Join(top, ".gitmodules")))
		}
	}
	dirs := []string{gitDir}
	if common, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dirs = append(dirs, c) // a linked worktree's submodules are kept in the shared one
	}
	for _, d := range dirs {
		if _, err := os.Lstat(filepath.Join(d, "modules")); err == nil {
			return fmt.Sprintf("the repository %s has submodules (%s), whose own configuration git follows too",
				files.Rel(d), files.Rel(filepath.Join(d, "modules")))
		}
	}
	return ""
}

// gitConfigCaution checks the configuration files of the repository at gitDir: its config,
// its worktree config and, for a linked worktree, the shared config.
func gitConfigCaution(files Files, gitDir string) string {
	paths := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	if common, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		paths = append(paths, filepath.Join(c, "config"), filepath.Join(c, "config.worktree"))
	}
	for _, p := range paths {
		data, err := readSmall(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return fmt.Sprintf("the repository's config %s cannot be read (%v)", files.Rel(p), err)
		}
		if ok, key := shellcmd.GitConfigHarmless(data); !ok {
			return fmt.Sprintf("the repository's config %s sets %s, which makes git run a program or look elsewhere", files.Rel(p), key)
		}
	}
	return ""
}

// hasIgnoreFile reports whether the primary root has an ignore file.
func hasIgnoreFile(files Files) bool {
	for _, name := range []string{".cairnignore", ".clineignore"} {
		if _, err := os.Stat(filepath.Join(files.Root(), name)); err == nil {
			return true
		}
	}
	return false
}

// trackedIgnored says which file tracked in the repository at dir the ignore file hides, so
// that git output showing file contents could print it; "" when there is none. The
// repository's config was found harmless before this runs git.
func trackedIgnored(ctx context.Context, files Files, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, gitListTimeout)
	defer cancel()
	out, err := gitOutput(ctx, dir, "ls-files", "-z", "--full-name")
	if err != nil {
		return fmt.Sprintf("git could not list the tracked files to check them against the ignore file (%v)", err)
	}
	top := dir
	if t, err := topLevel(ctx, dir); err == nil {
		top = t
	}
	for _, name := range bytes.Split(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		abs := filepath.Join(top, filepath.FromSlash(string(name)))
		if files.Ignored(abs) {
			return "git may print " + files.Rel(abs) + ", a tracked file the ignore file hides"
		}
	}
	return ""
}

// topLevel is the work tree's top folder of the repository at dir.
func topLevel(ctx context.Context, dir string) (string, error) {
	out, err := gitOutput(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// gitOutput runs a git command that only reads, in dir, with no GIT_* variable of the
// daemon's and with the fsmonitor off.
func gitOutput(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd.Output()
}
