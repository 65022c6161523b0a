package direct

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// Host is the direct host: diffs are applied to disk without a view, commands run in a PTY,
// and the editor knows nothing (no visible files, no tabs) but the diagnostics of the
// daemon's language servers, when it is given them (UseDiagnostics).
type Host struct {
	diffs    *Diffs
	terminal tools.Terminal
	editor   Editor
}

// New returns a direct host whose commands run with shell ("" = $SHELL). Commands never see
// the variables of config.DefaultSecretEnv, nor those named in hide.
func New(shell string, folders []string, hide ...string) *Host {
	return NewWithSecrets(shell, folders, config.Secrets{Names: hide})
}

// NewWithSecrets is New whose commands also never see the variables of secrets: by name, and
// any variable holding one of its values (Settings.Secrets: the API key, header values).
func NewWithSecrets(shell string, folders []string, secrets config.Secrets) *Host {
	term := NewTerminal(shell)
	for _, name := range secrets.Names {
		if !slices.Contains(term.Hide, name) {
			term.Hide = append(term.Hide, name)
		}
	}
	term.HideValues = slices.Clone(secrets.Values)
	return &Host{diffs: &Diffs{}, terminal: term, editor: Editor{Folders: folders}}
}

// RecordCommands makes the host's terminal record the commands it starts outside the command
// sandbox in l (nil: no record), for the next daemon to stop what this one leaves when killed.
func (h *Host) RecordCommands(l *Ledger) {
	if t, ok := h.terminal.(*Terminal); ok {
		t.Ledger = l
	}
}

// UseDiagnostics makes the host's editor answer diagnostics from d (the daemon's language
// servers, core/lsp), for the host's folders. Call it before the host is used.
func (h *Host) UseDiagnostics(d Diagnoser) { h.editor.Diagnoser = d }

// Diagnoser reports files' problems without an editor: the daemon's language servers.
type Diagnoser interface {
	// Diagnostics returns the problems of paths (absolute) in the workspace of roots; an
	// error means they could not be known (the result then says so).
	Diagnostics(ctx context.Context, roots, paths []string) ([]tools.Diagnostic, error)
}

// Diffs returns the disk diff presenter.
func (h *Host) Diffs() tools.DiffPresenter { return h.diffs }

// Terminal returns the PTY terminal.
func (h *Host) Terminal() tools.Terminal { return h.terminal }

// Editor returns the empty editor.
func (h *Host) Editor() tools.Editor { return h.editor }

// Diffs applies proposals to disk atomically when saved.
type Diffs struct{}

// Open starts a session for abs.
func (*Diffs) Open(_ context.Context, abs string, original string, isNew bool) (tools.DiffSession, error) {
	return &diskSession{abs: abs, original: original, isNew: isNew}, nil
}

type diskSession struct {
	abs      string
	original string
	isNew    bool

	// mu guards proposed and done.
	mu       sync.Mutex
	proposed string
	done     bool
}

func (s *diskSession) Update(_ context.Context, proposed string, _ bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.proposed = proposed
	return nil
}

// Save writes the proposal atomically, creating missing folders.
func (s *diskSession) Save(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return "", errors.New("direct: diff session already closed")
	}
	s.done = true
	created, err := workspace.MkdirAllTracked(filepath.Dir(s.abs))
	if err != nil {
		return "", fmt.Errorf("direct: %w", err)
	}
	if err := workspace.WriteFileAtomic(s.abs, []byte(s.proposed)); err != nil {
		workspace.RemoveCreated(created)
		return "", fmt.Errorf("direct: %w", err)
	}
	return s.proposed, nil
}

// Revert leaves the disk untouched: nothing was written before Save.
func (s *diskSession) Revert(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	return nil
}

// Editor is the editor of a host without one.
type Editor struct {
	Folders []string
	// Diagnoser, when set, answers Diagnostics.
	Diagnoser Diagnoser
}

// VisibleFiles returns nothing.
func (Editor) VisibleFiles(context.Context) ([]string, error) { return nil, nil }

// OpenTabs returns nothing.
func (Editor) OpenTabs(context.Context) ([]string, error) { return nil, nil }

// Diagnostics returns what the daemon's language servers report, or nothing without them.
func (e Editor) Diagnostics(ctx context.Context, paths []string) ([]tools.Diagnostic, error) {
	if e.Diagnoser == nil {
		return nil, nil
	}
	return e.Diagnoser.Diagnostics(ctx, e.Folders, paths)
}

// OpenFile does nothing.
func (Editor) OpenFile(context.Context, string, int) error { return nil }

// ShowMessage writes the message to stderr.
func (Editor) ShowMessage(_ context.Context, level, text string) error {
	_, err := fmt.Fprintf(os.Stderr, "cairn %s: %s\n", level, text)
	return err
}

// WorkspaceFolders returns the folders the host was made with.
func (e Editor) WorkspaceFolders(context.Context) ([]string, error) { return e.Folders, nil }
