package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Fixed identity of checkpoint commits.
const (
	authorName  = "Cairn Checkpoint"
	authorEmail = "checkpoint@cairn.invalid"
)

// gitRunner runs git against the shadow repository: GIT_DIR is the shadow folder, the work
// tree is the workspace, and no user or system configuration, hook or template applies.
type gitRunner struct {
	bin     string
	gitDir  string
	workDir string
	env     []string
}

func newGitRunner(bin, gitDir, workDir string) *gitRunner {
	env := make([]string, 0, len(os.Environ())+12)
	for _, kv := range os.Environ() {
		// Inherited GIT_* variables (GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, …) would point
		// git at the user's repository.
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_DIR="+gitDir,
		"GIT_WORK_TREE="+workDir,
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME="+authorName,
		"GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName,
		"GIT_COMMITTER_EMAIL="+authorEmail,
		"LC_ALL=C",
		// glibc otherwise returns and re-requests heap memory around every object git
		// compresses, which doubles the CPU time of the first checkpoint of a large tree.
		"MALLOC_TOP_PAD_=16777216",
		"MALLOC_TRIM_THRESHOLD_=67108864",
	)
	return &gitRunner{bin: bin, gitDir: gitDir, workDir: workDir, env: env}
}

// run runs git with args (and stdin when not nil) in the work tree and returns its stdout.
// A process killed by ctx may leave index.lock behind; the caller holds the repository lock,
// so the file is ours and is removed.
func (g *gitRunner) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = g.workDir
	cmd.Env = g.env
	cmd.Stdin = stdin
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			_ = os.Remove(filepath.Join(g.gitDir, "index.lock"))
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return stdout.Bytes(), fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.Bytes(), nil
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

// joinZ joins paths as NUL-terminated pathspec input.
func joinZ(paths []string) io.Reader {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return &b
}
