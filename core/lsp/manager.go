package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/watch"
)

// Defaults of Config's waits.
const (
	// DefaultStartWait bounds the wait of the edit that starts a server: its start and its
	// first load of the workspace.
	DefaultStartWait = 30 * time.Second
	// DefaultWait bounds the wait for a file's diagnostics once its server is up.
	DefaultWait = 2 * time.Second
	// DefaultIdle is how long a server stays without being asked anything before it stops.
	DefaultIdle = 10 * time.Minute
)

// maxFailures is how many times a server of one root and language may fail (crash, not
// start) before the manager stops starting it.
const maxFailures = 3

// Config is how the manager starts and waits for servers.
type Config struct {
	// Commands returns the languageServers setting at the time a server starts: a language's
	// command (program and arguments), or an empty list to turn the language off. Nil: none.
	Commands func() map[string][]string
	// Confine makes a server's process run in the command sandbox for root (workspace tier,
	// network off; docs/sandbox.md). Nil runs servers plainly (the sandbox is off or none can
	// be set up here).
	Confine func(cmd *exec.Cmd, root string) error
	// Watch is the daemon's one file-system watcher: changes to the files a server has open,
	// and to files of its language beside them, reach it through it. Nil: only the edits do.
	Watch *watch.Hub
	// StartWait, Wait and Idle replace the defaults when positive.
	StartWait, Wait, Idle time.Duration
}

// key names one server: a root and a language.
type key struct{ root, lang string }

// Manager runs the language servers of the daemon's tasks. Its methods are safe for
// concurrent use; Close stops every server and waits for them.
type Manager struct {
	cfg Config
	// done is closed by Close: the janitor stops.
	done chan struct{}
	wg   sync.WaitGroup

	// mu guards clients, failures, watches and closed.
	mu       sync.Mutex
	clients  map[key]*client
	failures map[key]int
	// watches are the folders watched for each server, with the stop of each watch.
	watches map[key]map[string]func()
	closed  bool
}

// New returns a manager; it starts no server until one is needed.
func New(cfg Config) *Manager {
	if cfg.StartWait <= 0 {
		cfg.StartWait = DefaultStartWait
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultIdle
	}
	m := &Manager{cfg: cfg, done: make(chan struct{}), clients: map[key]*client{}, failures: map[key]int{},
		watches: map[key]map[string]func(){}}
	m.wg.Add(1)
	go m.janitor()
	return m
}

// Diagnostics returns the diagnostics of paths (absolute) that their language servers report,
// after giving each server the file's text on disk; roots are the task's workspace roots,
// which decide each file's server. A file with no server (not a language Cairn knows, none
// installed, outside the roots) has none. It waits at most the start wait for a file its server
// has not seen yet, else the wait; an error (ErrUnavailable) means a server could not say.
func (m *Manager) Diagnostics(ctx context.Context, roots []string, paths []string) ([]tools.Diagnostic, error) {
	var out []tools.Diagnostic
	for _, abs := range paths {
		ds, err := m.fileDiagnostics(ctx, roots, abs)
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}

func (m *Manager) fileDiagnostics(ctx context.Context, roots []string, abs string) ([]tools.Diagnostic, error) {
	lang, id, ok := languageOf(abs)
	if !ok {
		return nil, nil
	}
	root := rootOf(roots, abs)
	if root == "" {
		return nil, nil
	}
	c, started, err := m.client(lang, root)
	if c == nil || err != nil {
		return nil, err
	}
	wait := m.cfg.Wait
	if started || !c.usableNow() {
		wait = m.cfg.StartWait
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := c.usable(wctx); err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		// No such file (yet: a new file's diagnostics are asked before it is written): it
		// has no problems, and the server forgets it.
		_, _, _, err := c.sync(wctx, abs, id)
		return nil, err
	}
	u, sent, opened, err := c.sync(wctx, abs, id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if opened {
		m.watchDir(lang, root, filepath.Dir(abs))
		if !started {
			// A file the server has not seen: its first load of the file's package may take
			// as long as the server's start.
			cancel()
			wctx, cancel = context.WithTimeout(ctx, m.cfg.StartWait)
			defer cancel()
		}
	}
	items, err := c.diagnostics(wctx, u, sent)
	if err != nil {
		return nil, err
	}
	return convert(abs, items), nil
}

// Warm starts the servers of the languages whose marker files lie at the top of roots (a
// task starting there), so the first edit finds them up. It does not wait for them.
func (m *Manager) Warm(roots []string) {
	for _, root := range roots {
		for _, lang := range Languages.Get() {
			for _, marker := range lang.Markers {
				if _, err := os.Stat(filepath.Join(root, marker)); err == nil {
					_, _, _ = m.client(lang, root) // a server that cannot start says so at the first edit
					break
				}
			}
		}
	}
}

// client returns the running server of lang for root, starting it when there is none;
// started says this call started it. A nil client without error: no server for the language.
func (m *Manager) client(lang Language, root string) (c *client, started bool, err error) {
	k := key{root, lang.Name}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, fmt.Errorf("%w: the daemon is stopping", ErrUnavailable)
	}
	if c := m.clients[k]; c != nil {
		return c, false, nil
	}
	if m.failures[k] >= maxFailures {
		return nil, false, fmt.Errorf("%w: the %s language server failed %d times", ErrUnavailable, lang.Name, maxFailures)
	}
	var configured map[string][]string
	if m.cfg.Commands != nil {
		configured = m.cfg.Commands()
	}
	argv, ok := program(lang, root, configured)
	if !ok {
		return nil, false, nil
	}
	var confine func(*exec.Cmd) error
	if m.cfg.Confine != nil {
		confine = func(cmd *exec.Cmd) error { return m.cfg.Confine(cmd, root) }
	}
	c, err = start(lang, root, argv, confine, m.cfg.StartWait)
	if err != nil {
		m.failures[k]++
		return nil, false, err
	}
	m.clients[k] = c
	return c, true, nil
}

// watchDir watches dir for the server of lang in root, once.
func (m *Manager) watchDir(lang Language, root, dir string) {
	if m.cfg.Watch == nil {
		return
	}
	k := key{root, lang.Name}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.clients[k] == nil || m.watches[k][dir] != nil {
		return
	}
	stop, ok := m.cfg.Watch.Watch(dir, func(ev watch.Event) { m.changed(k, ev) })
	if !ok {
		return
	}
	if m.watches[k] == nil {
		m.watches[k] = map[string]func(){}
	}
	m.watches[k][dir] = stop
}

// changed tells the server of k about a change the watcher saw: the text of a document it
// has open, and the change itself when the file is of its language. It runs on the watcher's
// goroutine, so the server is told on one of its own.
func (m *Manager) changed(k key, ev watch.Event) {
	lang, id, ok := languageOf(ev.Path)
	if !ok || lang.Name != k.lang || ev.Lost {
		return
	}
	m.mu.Lock()
	c := m.clients[k]
	if c == nil || m.closed || !c.usableNow() {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1) // under mu, before Close's wait can begin
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.Wait)
		defer cancel()
		u := uri.File(ev.Path)
		c.mu.Lock()
		_, open := c.docs[u]
		c.mu.Unlock()
		kind := protocol.FileChangeTypeChanged
		if _, err := os.Stat(ev.Path); err != nil {
			kind = protocol.FileChangeTypeDeleted
		}
		// Best effort: a server that does not hear of a change still gets the text at the
		// next edit of the file, which syncs it first.
		_ = c.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{
			Changes: []*protocol.FileEvent{{URI: u, Type: kind}}})
		if open {
			_, _, _, _ = c.sync(ctx, ev.Path, id)
		}
	}()
}

// janitor stops the servers nobody asked anything for the idle time, and those that crashed
// or did not start in time (counting the failure: the next use starts one afresh, up to
// maxFailures), until Close.
func (m *Manager) janitor() {
	defer m.wg.Done()
	tick := time.NewTicker(max(time.Second, min(m.cfg.Idle/4, time.Minute)))
	defer tick.Stop()
	for {
		select {
		case <-m.done:
			return
		case <-tick.C:
		}
		for _, c := range m.drop(func(c *client) bool {
			return time.Since(c.idleSince()) > m.cfg.Idle || c.goneReason() != ""
		}) {
			c.shutdown(context.Background(), 2*time.Second)
		}
	}
}

// drop removes the clients which says to drop, with their watches, and returns them; a
// client that failed counts toward its key's failures.
func (m *Manager) drop(which func(*client) bool) []*client {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*client
	for k, c := range m.clients {
		if !which(c) {
			continue
		}
		if !c.usableNow() {
			m.failures[k]++
		}
		for _, stop := range m.watches[k] {
			stop()
		}
		delete(m.watches, k)
		delete(m.clients, k)
		out = append(out, c)
	}
	return out
}

// Close stops every server (asking each to shut down, killing it after a short wait) and
// waits for them; later calls get ErrUnavailable.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	cs := m.drop(func(*client) bool { return true })
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shutdown(context.Background(), 2*time.Second)
		}()
	}
	wg.Wait()
	close(m.done)
	m.wg.Wait()
	return nil
}

// rootOf returns the root of roots that holds abs ("" when none does); the deepest wins.
func rootOf(roots []string, abs string) string {
	best := ""
	for _, r := range roots {
		r = filepath.Clean(r)
		if abs == r || strings.HasPrefix(abs, r+string(filepath.Separator)) {
			if len(r) > len(best) {
				best = r
			}
		}
	}
	return best
}

// severity names a diagnostic's severity as the edit tools do ("" when it has none).
func severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "information"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return ""
}

// convert turns a server's diagnostics of abs into the edit tools' (those of VS Code's
// editor have the same form). A diagnostic without a severity is an error, as the protocol
// leaves it to the client and editors show it so.
func convert(abs string, items []protocol.Diagnostic) []tools.Diagnostic {
	out := make([]tools.Diagnostic, 0, len(items))
	for _, d := range items {
		sev := severity(d.Severity)
		if sev == "" {
			sev = "error"
		}
		out = append(out, tools.Diagnostic{Path: abs, Line: int(d.Range.Start.Line) + 1, Severity: sev, Message: d.Message, Source: d.Source})
	}
	return out
}
