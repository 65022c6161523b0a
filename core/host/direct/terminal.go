// Package direct implements the tools.Host interfaces on the local disk and processes, for when no editor is attached.
package direct

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/config"
)

// DefaultGrace is how long a killed process group gets between SIGTERM and SIGKILL
// (docs/tools.md, "execute_command").
const DefaultGrace = 5 * time.Second

// drainIdle bounds how long output is still read after the shell exited. Bytes written before
// the exit are already buffered in the PTY or pipe and arrive at once; the bound only matters
// when an orphaned background job keeps the PTY open, which would otherwise hold EOF forever.
const drainIdle = 200 * time.Millisecond

// Terminal runs commands as local processes, in a pseudo-terminal when one can be allocated so
// programs behave as they do for the user (line buffering, isatty checks), else over pipes.
// It implements tools.Terminal.
type Terminal struct {
	// Shell is the program run as `Shell -c command`.
	Shell string
	// Grace is the delay between SIGTERM and SIGKILL when a process group is stopped.
	Grace time.Duration
	// Hide names environment variables commands must not see (model API keys): they are
	// removed from the daemon's environment before a command starts.
	Hide []string
	// HideValues are secret values (the API key, header values): a variable holding one is
	// removed whatever its name (config.Secrets).
	HideValues []string
	// Ledger records the commands started outside the command sandbox, for the next daemon
	// to stop what a killed daemon left running (nil: no record).
	Ledger *Ledger
	// noPTY forces the pipe fallback; tests use it to cover both paths.
	noPTY bool
}

// NewTerminal returns a terminal running commands with shell; "" means the user's shell:
// $SHELL, then /bin/sh (on Windows %ComSpec%, then cmd.exe: a $SHELL there is a Unix path
// leaking in from MSYS or Wine, not something Windows can start).
func NewTerminal(shell string) *Terminal {
	if shell == "" {
		shell = defaultShell()
	}
	return &Terminal{Shell: shell, Grace: DefaultGrace, Hide: slices.Clone(config.DefaultSecretEnv)}
}

// childEnv is the environment of commands: the daemon's without the secrets (config.Secrets:
// by name and by value), told that nobody reads a screen. A PTY makes programs think a user is there, so pagers must
// be disabled or `git log` would wait for a key press forever; TERM=dumb keeps most colour and
// cursor tricks away.
func childEnv(base []string, secrets config.Secrets) []string {
	set := []string{"TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "CAIRN_ACTIVE=true"}
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range secrets.Scrub(base) {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

// secrets is what the terminal keeps from commands.
func (t *Terminal) secrets() config.Secrets {
	return config.Secrets{Names: t.Hide, Values: t.HideValues}
}

// outPipe is an unbounded in-memory pipe: the writer (the PTY reader goroutine) never blocks,
// so the child never stalls on a full PTY buffer while the consumer is busy, and nothing is
// lost. Read returns io.EOF once closed and drained.
type outPipe struct {
	// mu guards buf and closed; cond signals either changing.
	mu     sync.Mutex
	cond   *sync.Cond
	buf    bytes.Buffer
	closed bool
}

func newOutPipe() *outPipe {
	p := &outPipe{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *outPipe) write(b []byte) {
	p.mu.Lock()
	p.buf.Write(b)
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *outPipe) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
}

// Read implements io.Reader.
func (p *outPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.buf.Len() == 0 && !p.closed {
		p.cond.Wait()
	}
	if p.buf.Len() == 0 {
		return 0, io.EOF
	}
	return p.buf.Read(b)
}
