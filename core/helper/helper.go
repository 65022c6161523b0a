// Package helper runs cairn-helper, the daemon's second executable. What few tasks need and
// whose libraries are heavy to load (a PDF's or a Word document's text, text in a legacy
// encoding, an HTML page as Markdown, the OpenTelemetry exporters) lives there and starts on first use, so the daemon, and every process of its
// binary such as the sandbox's launcher, starts and idles without those libraries' code and
// initialisers (docs/performance.md, "P5 — the daemon at rest"). The helper sits beside the
// daemon's executable, as scripts/build-daemon.sh builds both; CAIRN_HELPER names another.
package helper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// Env names the variable that, when set, is the helper's path (tests and unusual installs).
const Env = "CAIRN_HELPER"

// RefusedStatus is the helper's exit status when it refuses its input (a document it cannot
// read); what it wrote to stderr says why.
const RefusedStatus = 3

// RefusedError is the helper refusing its input: the input's fault, not the helper's.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// located is where the helper is, or why it could not be found.
type located struct {
	path string
	err  error
}

// where is the helper's path, looked up on first use: a lazy.Value declares it without adding
// to the package's initialiser, which would run in every process of the daemon's binary.
var where = lazy.Value[located]{New: func() located {
	p, err := locate()
	return located{p, err}
}}

// locate finds the helper, as Path describes.
func locate() (string, error) {
	if p := os.Getenv(Env); p != "" {
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cairn-helper: locating the daemon's executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	p := filepath.Join(filepath.Dir(self), Name)
	info, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("cairn-helper is missing beside the daemon (%s); reinstall Cairn or set %s: %w", p, Env, err)
	}
	// Unpacking a .vsix may drop the executable bit, as it may the daemon's.
	if runtime.GOOS != "windows" && info.Mode()&0o111 == 0 {
		if err := os.Chmod(p, info.Mode()|0o755); err != nil {
			return "", fmt.Errorf("cairn-helper at %s is not executable: %w", p, err)
		}
	}
	return p, nil
}

// Path is the helper's executable: $CAIRN_HELPER, else cairn-helper beside the daemon's own
// executable. It is looked up once.
func Path() (string, error) {
	l := where.Get()
	return l.path, l.err
}

// Command is the helper run with args, not yet started.
func Command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	p, err := Path()
	if err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, p, args...), nil
}

// Run runs the helper with args, stdin as its input, and returns what it wrote to stdout. A
// refused input is a *RefusedError; any other failure names the helper's command and stderr.
func Run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd, err := Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case errors.As(err, &exit) && exit.ExitCode() == RefusedStatus:
		return nil, &RefusedError{Msg: strings.TrimSpace(stderr.String())}
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		return nil, fmt.Errorf("cairn-helper %s: %w", args[0], err)
	}
	return nil, fmt.Errorf("cairn-helper %s: %w: %s", args[0], err, msg)
}
