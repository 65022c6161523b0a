package edit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// fakeHost is an editor kept in memory: diffs behave like VS Code's (a new file and its
// folders exist, empty, while the diff is open; save writes the proposal as the "user" left
// it; revert restores), and diagnostics are computed from the file on disk: every line that
// contains "ERR:" is an error with the rest of the line as its message.
type fakeHost struct {
	t *testing.T
	// onSave, when set, turns the proposal into what gets saved (user edits, formatting).
	onSave func(proposal string) string
	// diagsFail makes Diagnostics fail (a host without language features).
	diagsFail bool

	// mu guards everything below.
	mu       sync.Mutex
	sessions []*fakeSession
	diagAsks int
	reverted chan *fakeSession // receives each reverted session, if set
}

type fakeSession struct {
	h        *fakeHost
	abs      string
	original string
	isNew    bool
	created  []string

	// guarded by h.mu
	updates  []string
	finals   int
	saved    bool
	reverted bool
}

func newHost(t *testing.T) *fakeHost { return &fakeHost{t: t} }

func (h *fakeHost) Diffs() tools.DiffPresenter { return h }
func (h *fakeHost) Terminal() tools.Terminal   { return nil }
func (h *fakeHost) Editor() tools.Editor       { return fakeEditor{h} }

func (h *fakeHost) Open(_ context.Context, abs, original string, isNew bool) (tools.DiffSession, error) {
	s := &fakeSession{h: h, abs: abs, original: original, isNew: isNew}
	if isNew {
		created, err := workspace.MkdirAllTracked(filepath.Dir(abs))
		if err != nil {
			return nil, err
		}
		s.created = created
		if err := os.WriteFile(abs, nil, 0o644); err != nil {
			return nil, err
		}
	}
	h.mu.Lock()
	h.sessions = append(h.sessions, s)
	h.mu.Unlock()
	return s, nil
}

func (s *fakeSession) Update(_ context.Context, proposed string, final bool) error {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if s.saved || s.reverted {
		return errors.New("fake: session closed")
	}
	s.updates = append(s.updates, proposed)
	if final {
		s.finals++
	}
	return nil
}

func (s *fakeSession) Save(context.Context) (string, error) {
	s.h.mu.Lock()
	if s.saved || s.reverted || len(s.updates) == 0 {
		s.h.mu.Unlock()
		return "", errors.New("fake: nothing to save")
	}
	s.saved = true
	text := s.updates[len(s.updates)-1]
	onSave := s.h.onSave
	s.h.mu.Unlock()
	if onSave != nil {
		text = onSave(text)
	}
	if err := workspace.WriteFileAtomic(s.abs, []byte(text)); err != nil {
		return "", err
	}
	return text, nil
}

func (s *fakeSession) Revert(context.Context) error {
	s.h.mu.Lock()
	if s.saved || s.reverted {
		s.h.mu.Unlock()
		return nil
	}
	s.reverted = true
	ch := s.h.reverted
	s.h.mu.Unlock()
	if s.isNew {
		_ = os.Remove(s.abs)
		workspace.RemoveCreated(s.created)
	}
	if ch != nil {
		ch <- s
	}
	return nil
}

// opened returns the sessions opened so far.
func (h *fakeHost) opened() []*fakeSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*fakeSession(nil), h.sessions...)
}

// state reports a session's updates and whether it was saved or reverted.
func (s *fakeSession) state() (updates []string, saved, reverted bool) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return append([]string(nil), s.updates...), s.saved, s.reverted
}

type fakeEditor struct{ h *fakeHost }

func (fakeEditor) VisibleFiles(context.Context) ([]string, error)    { return nil, nil }
func (fakeEditor) OpenTabs(context.Context) ([]string, error)        { return nil, nil }
func (fakeEditor) OpenFile(context.Context, string, int) error       { return nil }
func (fakeEditor) ShowMessage(context.Context, string, string) error { return nil }
func (fakeEditor) WorkspaceFolders(context.Context) ([]string, error) {
	return nil, nil
}

func (e fakeEditor) Diagnostics(_ context.Context, paths []string) ([]tools.Diagnostic, error) {
	e.h.mu.Lock()
	e.h.diagAsks++
	fail := e.h.diagsFail
	e.h.mu.Unlock()
	if fail {
		return nil, errors.New("fake: no language server")
	}
	var out []tools.Diagnostic
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for i, l := range strings.Split(string(b), "\n") {
			if _, m, ok := strings.Cut(l, "ERR:"); ok {
				out = append(out, tools.Diagnostic{Path: p, Line: i + 1, Severity: "error", Message: strings.TrimSpace(m), Source: "fake"})
			}
			if _, m, ok := strings.Cut(l, "WARN:"); ok {
				out = append(out, tools.Diagnostic{Path: p, Line: i + 1, Severity: "warning", Message: strings.TrimSpace(m), Source: "fake"})
			}
		}
	}
	return out, nil
}

// fakeUI answers approvals with a fixed answer, or blocks until the context ends when block
// is set (a user who never answers before the task is cancelled).
type fakeUI struct {
	answer tools.Answer
	block  bool
	asking chan struct{} // closed when an approval is pending, if set

	// mu guards everything below.
	mu        sync.Mutex
	approvals []tools.Approval
	says      []msg.Kind
	payloads  []msg.Payload // beside says, the payload of each
	outcomes  []msg.Outcome
}

func (u *fakeUI) RecordOutcome(_ context.Context, o msg.Outcome) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.outcomes = append(u.outcomes, o)
}

func (u *fakeUI) Approve(ctx context.Context, req tools.Approval) (tools.Answer, error) {
	u.mu.Lock()
	u.approvals = append(u.approvals, req)
	u.mu.Unlock()
	if u.block {
		if u.asking != nil {
			close(u.asking)
		}
		<-ctx.Done()
		return tools.Answer{}, ctx.Err()
	}
	return u.answer, nil
}

func (u *fakeUI) Ask(context.Context, msg.Kind, string, msg.Payload) (tools.Answer, error) {
	return tools.Answer{}, errors.New("fake: no questions")
}

func (u *fakeUI) Say(_ context.Context, kind msg.Kind, _ string, p msg.Payload, _ bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.says = append(u.says, kind)
	u.payloads = append(u.payloads, p)
}

func (u *fakeUI) said(kind msg.Kind) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, k := range u.says {
		if k == kind {
			return true
		}
	}
	return false
}

// fixture is a workspace in a temp dir with the fakes wired into an Env.
type fixture struct {
	t    *testing.T
	root string
	host *fakeHost
	ui   *fakeUI
	env  *tools.Env
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: root, host: newHost(t), ui: &fakeUI{answer: tools.Answer{Approved: true}}}
	f.env = &tools.Env{Files: ws, Host: f.host, UI: f.ui, Mode: "act"}
	return f
}

func (f *fixture) path(name string) string { return filepath.Join(f.root, filepath.FromSlash(name)) }

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// snapshot is a file's bytes and mode, for "byte-identical afterwards" checks.
type snapshot struct {
	data []byte
	mode os.FileMode
}

func (f *fixture) snap(name string) snapshot {
	f.t.Helper()
	st, err := os.Stat(f.path(name))
	if err != nil {
		f.t.Fatal(err)
	}
	return snapshot{data: []byte(f.read(name)), mode: st.Mode()}
}

func (f *fixture) unchanged(name string, before snapshot) {
	f.t.Helper()
	after := f.snap(name)
	if !bytes.Equal(before.data, after.data) || before.mode != after.mode {
		f.t.Fatalf("%s changed: %q (%v) → %q (%v)", name, before.data, before.mode, after.data, after.mode)
	}
}

func replaceCall(path, diff string) tools.Call {
	return tools.Call{Name: "replace_in_file", Params: map[string]string{"path": path, "diff": diff}}
}

func writeCall(path, content string) tools.Call {
	return tools.Call{Name: "write_to_file", Params: map[string]string{"path": path, "content": content}}
}

func block(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}

// newFileText is how s lands in a new file on this platform: CRLF line endings on Windows.
func newFileText(s string) string {
	if !newFileCRLF {
		return s
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}
