package mentions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Git output is capped: the head says what the change is about, the tail holds the most
// recent hunks; 20 % / 80 % as in Cline.
const (
	maxGitLines  = 500
	gitHeadLines = maxGitLines / 5
)

// emptyTree is git's well-known empty tree (SHA-1), the base for a repository without commits.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// gitChanges shows `git status --short` and `git diff` against HEAD for the primary root.
func (d Deps) gitChanges(ctx context.Context) string {
	if d.Files == nil {
		return render("git-error", textData{Err: "no workspace"})
	}
	dir := d.Files.Root()
	if _, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree"); err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	base := "HEAD"
	if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		base = emptyTree
	}
	changed, err := git(ctx, dir, "diff", "--name-only", "-z", base)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	untracked, err := git(ctx, dir, "ls-files", "--others", "--exclude-standard", "--full-name", "-z")
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	excl, err := d.excludes(ctx, dir, changed+untracked)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	status, err := git(ctx, dir, append([]string{"status", "--short", "--"}, excl...)...)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	if strings.TrimSpace(status) == "" {
		return render("git-clean", textData{})
	}
	diff, err := git(ctx, dir, append([]string{"diff", base, "--"}, excl...)...)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	out := strings.TrimRight(status, "\n")
	if diff = strings.TrimRight(diff, "\n"); diff != "" {
		out += "\n\n" + diff
	}
	return capLines(out)
}

// gitCommit shows a commit: header, message, stat and patch.
func (d Deps) gitCommit(ctx context.Context, hash string) string {
	if d.Files == nil {
		return render("git-error", textData{Err: "no workspace"})
	}
	dir := d.Files.Root()
	if _, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree"); err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	full, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", hash+"^{commit}")
	if err != nil {
		return render("commit-unknown", textData{Hash: hash})
	}
	full = strings.TrimSpace(full)
	names, err := git(ctx, dir, "show", "--name-only", "-z", "--format=", full)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	excl, err := d.excludes(ctx, dir, names)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	out, err := git(ctx, dir, append([]string{"show", "--stat", "--patch", "--format=medium", full, "--"}, excl...)...)
	if err != nil {
		return render("git-error", textData{Err: errText(err)})
	}
	return capLines(strings.TrimRight(out, "\n"))
}

// excludes returns pathspecs that hide the files of a NUL-separated, top-relative name list
// that the ignore file blocks.
func (d Deps) excludes(ctx context.Context, dir, names string) ([]string, error) {
	if names == "" {
		return nil, nil
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	top = strings.TrimRight(top, "\n")
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(names, "\x00") {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		if d.Files.Ignored(filepath.Join(top, filepath.FromSlash(n))) {
			out = append(out, ":(top,literal,exclude)"+n)
		}
	}
	return out, nil
}

// git runs one git command in dir and returns its output. The error carries git's own
// message (stderr), which is what the model needs to understand a refusal.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	full := append([]string{"--no-pager", "-c", "color.ui=never", "-c", "core.quotepath=off"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(firstLine(msg))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.String(), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// capLines keeps the first gitHeadLines and the last maxGitLines-gitHeadLines lines of s
// with a note of how many were cut in between.
func capLines(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= maxGitLines {
		return s
	}
	tail := maxGitLines - gitHeadLines
	omitted := len(lines) - maxGitLines
	kept := append(append(lines[:gitHeadLines:gitHeadLines],
		render("git-omitted", textData{N: int64(omitted)})), lines[len(lines)-tail:]...)
	return strings.Join(kept, "\n")
}
