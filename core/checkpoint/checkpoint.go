// Package checkpoint snapshots a workspace into a shadow git repository so an agent's file changes
// can be compared and undone (docs/architecture.md, "Checkpoints and the first checkpoint"). The
// shadow repository lives in the data dir (GIT_DIR outside the workspace) and uses the workspace as
// its work tree; the user's own repositories are only ever read: no .git folder in the workspace is
// renamed, written or locked. Commits honour the workspace's .gitignore files, the user's ignore
// file (.cairnignore/.clineignore) and default excludes (dependency and build folders, media,
// archives, databases, logs); nested repositories and files over the size limit are skipped and
// reported by Warnings.
//
// A Manager serves one task; several Managers on one workspace share the repository and take
// turns through a per-repository lock.
package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of the options.
const (
	// DefaultFirstTimeout bounds the first checkpoint of a Manager (Cline: 15 s).
	DefaultFirstTimeout = 15 * time.Second
	// DefaultMaxFileSize is the largest file snapshotted.
	DefaultMaxFileSize = 10 << 20
	defaultMessage     = "checkpoint"
)

// FileDiff is one changed file between two snapshots. Before is empty for an added file and
// After for a deleted one.
type FileDiff struct {
	Path   string // slash-separated, relative to the workspace
	Before string
	After  string
}

// Option changes a Manager's limits.
type Option func(*Manager)

// WithFirstTimeout sets how long the first Commit may take before the Manager disables itself
// (0: no limit).
func WithFirstTimeout(d time.Duration) Option { return func(m *Manager) { m.firstTimeout = d } }

// WithMaxFileSize sets the size above which files are skipped.
func WithMaxFileSize(n int64) Option { return func(m *Manager) { m.maxSize = n } }

// Manager takes, compares and restores checkpoints of one workspace.
type Manager struct {
	root         string // absolute, symlinks resolved
	gitDir       string
	dataRel      string // the checkpoints folder relative to root when it lies inside, else ""
	git          *gitRunner
	repo         *repoLock
	firstTimeout time.Duration
	maxSize      int64

	// mu guards the fields below; it is never held while git runs.
	mu        sync.Mutex
	committed bool  // a Commit succeeded
	disabled  error // set once the Manager gave up
	skipped   skipList
}

// isHash reports whether h looks like an abbreviated or full commit hash (4–64 lower-case hex
// digits). A loop, not a regexp: `{4,64}` compiles to a large program at every daemon start.
func isHash(h string) bool {
	if len(h) < 4 || len(h) > 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// New opens (creating on first use) the shadow repository of workspaceRoot under
// dataDir/checkpoints. It fails with ErrGitMissing without git and ErrProtectedDir for the
// home folder and its Desktop, Documents and Downloads.
func New(ctx context.Context, dataDir, workspaceRoot string, opts ...Option) (*Manager, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrGitMissing
	}
	root, err := filepath.Abs(workspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: workspace: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("checkpoints: workspace %s is not a folder", root)
	}
	if isProtected(root) {
		return nil, ErrProtectedDir
	}
	base, err := filepath.Abs(filepath.Join(dataDir, "checkpoints"))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	sum := sha256.Sum256([]byte(root))
	gitDir := filepath.Join(base, hex.EncodeToString(sum[:8]))
	m := &Manager{root: root, gitDir: gitDir, git: newGitRunner(bin, gitDir, root), repo: lockFor(gitDir),
		firstTimeout: DefaultFirstTimeout, maxSize: DefaultMaxFileSize}
	for _, o := range opts {
		o(m)
	}
	if b, err := filepath.EvalSymlinks(filepath.Dir(base)); err == nil {
		base = filepath.Join(b, "checkpoints")
	}
	if rel, err := filepath.Rel(root, base); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		m.dataRel = filepath.ToSlash(rel)
	}
	if err := m.repo.lock(ctx); err != nil {
		return nil, err
	}
	defer m.repo.unlock()
	if err := m.init(ctx); err != nil {
		return nil, err
	}
	m.skipped = loadSkipList(gitDir)
	return m, nil
}

// init creates the shadow repository when it does not exist yet.
func (m *Manager) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(m.gitDir, "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(m.gitDir, 0o700); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	if _, err := m.git.run(ctx, nil, "init", "-q", "--template="); err != nil {
		return fmt.Errorf("checkpoints: init: %w", err)
	}
	// Settings that keep snapshots byte-exact and git quiet; appended to what init probed.
	cfg := "[core]\n\tautocrlf = false\n\tsafecrlf = false\n\tquotepath = false\n\tfsmonitor = false\n" +
		"\tlogallrefupdates = false\n\thooksPath = " + os.DevNull + "\n[commit]\n\tgpgSign = false\n[gc]\n\tauto = 0\n"
	if err := appendFile(filepath.Join(m.gitDir, "config"), cfg); err != nil {
		return err
	}
	// The workspace's .gitattributes must not convert line endings or run filters.
	if err := writeFile(filepath.Join(m.gitDir, "info", "attributes"),
		"* -text -eol -ident -filter -working-tree-encoding\n"); err != nil {
		return err
	}
	return writeFile(filepath.Join(m.gitDir, "cairn-workspace"), m.root+"\n")
}

// Root returns the workspace folder.
func (m *Manager) Root() string { return m.root }

// Dir returns the shadow repository (GIT_DIR).
func (m *Manager) Dir() string { return m.gitDir }

// Warnings says what checkpoints leave out (nested repositories, large files), sorted.
func (m *Manager) Warnings() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.skipped.warnings()
}

// Err returns why the Manager is disabled, or nil.
func (m *Manager) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.disabled
}

// Commit snapshots the workspace and returns the checkpoint's hash; when nothing changed since
// the latest checkpoint it returns that checkpoint's hash. The first Commit of a
// Manager that exceeds the first-checkpoint limit returns an error matching ErrTooSlow and
// ErrDisabled, and every later call fails fast with it.
func (m *Manager) Commit(ctx context.Context, message string) (string, error) {
	m.mu.Lock()
	disabled, first := m.disabled, !m.committed
	m.mu.Unlock()
	if disabled != nil {
		return "", disabled
	}
	if strings.TrimSpace(message) == "" {
		message = defaultMessage
	}
	runCtx := ctx
	if first && m.firstTimeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, m.firstTimeout)
		defer cancel()
	}
	hash, err := m.commit(runCtx, message)
	if err != nil {
		if first && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
			derr := &disabledError{cause: fmt.Errorf("%w (limit %s)", ErrTooSlow, m.firstTimeout)}
			m.mu.Lock()
			m.disabled = derr
			m.mu.Unlock()
			return "", derr
		}
		return "", fmt.Errorf("checkpoints: commit: %w", err)
	}
	m.mu.Lock()
	m.committed = true
	m.mu.Unlock()
	return hash, nil
}

func (m *Manager) commit(ctx context.Context, message string) (string, error) {
	if err := m.repo.lock(ctx); err != nil {
		return "", err
	}
	defer m.repo.unlock()
	if err := m.stage(ctx); err != nil {
		return "", err
	}
	out, err := m.git.run(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	args := []string{"commit-tree", tree, "-m", message}
	if out, err := m.git.run(ctx, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
		head := strings.TrimSpace(string(out))
		if out, err := m.git.run(ctx, nil, "rev-parse", head+"^{tree}"); err == nil && strings.TrimSpace(string(out)) == tree {
			return head, nil // nothing changed since the latest checkpoint
		}
		args = append(args, "-p", head)
	} else if ctx.Err() != nil {
		return "", err
	}
	out, err = m.git.run(ctx, nil, args...)
	if err != nil {
		return "", err
	}
	hash := strings.TrimSpace(string(out))
	if _, err := m.git.run(ctx, nil, "update-ref", "HEAD", hash); err != nil {
		return "", err
	}
	return hash, nil
}

// Close releases the Manager. The shadow repository stays for later tasks.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.disabled == nil {
		m.disabled = &disabledError{cause: errors.New("checkpoints: closed")}
	}
	return nil
}

// checkHash validates a caller's hash and resolves it to a commit of this repository.
func (m *Manager) checkHash(ctx context.Context, h string) (string, error) {
	if !isHash(h) {
		return "", fmt.Errorf("%w: %q", ErrBadHash, h)
	}
	out, err := m.git.run(ctx, nil, "rev-parse", "--verify", "--quiet", h+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: %q", ErrBadHash, h)
	}
	return strings.TrimSpace(string(out)), nil
}

// disabledError is why a Manager stopped; it matches ErrDisabled and its cause.
type disabledError struct{ cause error }

func (e *disabledError) Error() string        { return e.cause.Error() }
func (e *disabledError) Unwrap() error        { return e.cause }
func (e *disabledError) Is(target error) bool { return target == ErrDisabled }

// isProtected reports the folders checkpoints refuse: home, its Desktop/Documents/Downloads,
// and the filesystem root.
func isProtected(root string) bool {
	if filepath.Dir(root) == root {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	homes := []string{home}
	if h, err := filepath.EvalSymlinks(home); err == nil && h != home {
		homes = append(homes, h)
	}
	for _, h := range homes {
		for _, p := range []string{h, filepath.Join(h, "Desktop"), filepath.Join(h, "Documents"), filepath.Join(h, "Downloads")} {
			if sameDir(root, p) {
				return true
			}
		}
	}
	return false
}

func sameDir(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// repoLock serialises git runs on one shadow repository across Managers; waits honour ctx.
type repoLock struct{ ch chan struct{} }

func (l *repoLock) lock(ctx context.Context) error {
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("checkpoints: waiting for the repository: %w", ctx.Err())
	}
}

func (l *repoLock) unlock() { <-l.ch }

var (
	// locksMu guards locks, made on first use.
	locksMu sync.Mutex
	locks   map[string]*repoLock
)

func lockFor(gitDir string) *repoLock {
	locksMu.Lock()
	defer locksMu.Unlock()
	l, ok := locks[gitDir]
	if !ok {
		l = &repoLock{ch: make(chan struct{}, 1)}
		if locks == nil {
			locks = map[string]*repoLock{}
		}
		locks[gitDir] = l
	}
	return l
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}

func appendFile(path, content string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	if _, err := f.WriteString(content); err != nil {
		return errors.Join(fmt.Errorf("checkpoints: %w", err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
