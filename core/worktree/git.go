package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Identity of the commits Cairn makes itself (the task's commit on its branch, and the merge
// commit when the user's repository names nobody).
const (
	cairnName  = "Cairn"
	cairnEmail = "cairn@cairn.invalid"
)

// gitCmd is one git invocation: run in dir, with extra environment on top of the daemon's own
// (inherited GIT_* variables removed, so they never point git at another repository).
type gitCmd struct {
	dir   string
	env   []string
	stdin io.Reader
}

// baseEnv is the process environment without GIT_* variables, plus settings that keep git
// from prompting or translating its output.
func baseEnv() []string {
	env := make([]string, 0, len(os.Environ())+4)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
}

// exitCode is the exit status of a git that ran and failed, or -1.
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// run runs git args and returns its stdout; a failure carries git's stderr.
func (g gitCmd) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(baseEnv(), g.env...)
	cmd.Stdin = g.stdin
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return stdout.Bytes(), fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// line runs git and returns its output's first line, trimmed.
func (g gitCmd) line(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, args...)
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first), nil
}

// identity returns the environment that makes Cairn the author and committer when the
// repository at dir names no user, and nothing when it does.
func identity(ctx context.Context, dir string) []string {
	g := gitCmd{dir: dir}
	name, _ := g.line(ctx, "config", "user.name")   // unset exits 1: no name
	email, _ := g.line(ctx, "config", "user.email") // likewise
	if name != "" && email != "" {
		return nil
	}
	return []string{"GIT_AUTHOR_NAME=" + cairnName, "GIT_AUTHOR_EMAIL=" + cairnEmail,
		"GIT_COMMITTER_NAME=" + cairnName, "GIT_COMMITTER_EMAIL=" + cairnEmail}
}

// splitZ splits NUL-terminated git output.
func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
