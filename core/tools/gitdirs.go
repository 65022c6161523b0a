package tools

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/protect"
)

// maxGitFile bounds how much of a `.git` file or a git config is read to find a git dir.
const maxGitFile = 64 << 10

// gitDirReason returns protect.ReasonGit when abs is, or lies in, a git directory that the
// protected list does not name because it is not called .git (README, Security: protected
// files): the folder a `.git` file points to (`gitdir: …`, as a worktree, a submodule or
// `git init --separate-git-dir` leave them), or a folder that is a git directory by its
// contents (HEAD with objects/, or with a config that sets core.worktree, or with a commondir
// file, as a bare repository or a separate git dir has). Git runs the hooks and reads the
// config of such a folder just as it does those in .git/.
//
// It looks only at abs and the folders above it up to the workspace root: a few Lstat calls
// per folder and a read of any `.git` file met on the way. Nothing is cached, so a git dir the
// agent made a moment ago counts at once.
func gitDirReason(files Files, abs string) string {
	for d := abs; ; {
		if filepath.IsAbs(filepath.FromSlash(files.Rel(d))) {
			return "" // above every workspace root
		}
		if isGitDir(d) {
			return protect.ReasonGit
		}
		if g := gitFileTarget(d); g != "" && within(abs, g) {
			return protect.ReasonGit
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// within reports whether p is dir or lies below it, comparing both as given and with
// symlinks resolved as far as they exist.
func within(p, dir string) bool {
	in := func(p, dir string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	return in(p, dir) || in(evalAsFarAsExists(p), evalAsFarAsExists(dir))
}

// evalAsFarAsExists resolves the symlinks of the longest existing prefix of p.
func evalAsFarAsExists(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// isGitDir reports whether the folder d holds what git needs to use it as a repository.
func isGitDir(d string) bool {
	if !isFile(filepath.Join(d, "HEAD")) {
		return false
	}
	if isFile(filepath.Join(d, "commondir")) {
		return true // a linked worktree's own git dir
	}
	if !isFile(filepath.Join(d, "config")) {
		return false
	}
	if st, err := os.Lstat(filepath.Join(d, "objects")); err == nil && st.IsDir() {
		return true
	}
	return setsWorktree(filepath.Join(d, "config"))
}

func isFile(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}

// setsWorktree reports whether the git config file at p sets core.worktree: only a git
// directory has a work tree elsewhere.
func setsWorktree(p string) bool {
	data, err := readSmall(p)
	if err != nil {
		return false
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(strings.Fields(line + " ")[0], "[]"))
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		if section == "core" && strings.EqualFold(strings.TrimSpace(key), "worktree") {
			return true
		}
	}
	return false
}

// gitFileTarget returns the git dir that a `.git` file in folder d points to, absolute, or "".
func gitFileTarget(d string) string {
	p := filepath.Join(d, ".git")
	if !isFile(p) {
		return ""
	}
	data, err := readSmall(p)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:"); ok {
			g := filepath.FromSlash(strings.TrimSpace(rest))
			if g == "" {
				return ""
			}
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			return filepath.Clean(g)
		}
	}
	return ""
}

// readSmall reads at most maxGitFile bytes of p.
func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	_ = f.Close() // opened read-only: a failed close loses nothing
	return data, err
}

// linkedGitDirReason returns protect.ReasonGit when abs, outside every workspace root, is or
// lies in the git directory the primary root's `.git` file points to, or in the repository's
// common git directory that one names (its `commondir`). A task in a worktree (README, "Tasks
// in worktrees") has the worktree as its root, and the main repository's `.git/` is then
// outside it: it is protected by its absolute path.
func linkedGitDirReason(files Files, abs string) string {
	g := gitFileTarget(files.Root())
	if g == "" {
		return ""
	}
	if within(abs, g) {
		return protect.ReasonGit
	}
	data, err := readSmall(filepath.Join(g, "commondir"))
	if err != nil {
		return ""
	}
	common := filepath.FromSlash(strings.TrimSpace(string(data)))
	if common == "" {
		return ""
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(g, common)
	}
	if within(abs, filepath.Clean(common)) {
		return protect.ReasonGit
	}
	return ""
}
