// Package mcp is the daemon's Model Context Protocol hub: one per daemon, shared by every task
// and window. It reads mcp_settings.json (Cline's schema) from the data dir, connects to each
// enabled server in the background and in parallel (stdio, SSE or Streamable HTTP), keeps each
// server's status, tools, resources, templates, prompts and instructions current
// (list_changed notifications refresh them), reconnects with backoff, and applies edits of the
// settings file — its own or the user's — without a restart.
//
// Nothing here waits for a server on behalf of a caller that did not ask for one: Start
// returns at once, Servers is a snapshot, and a call to a server that is not connected fails
// fast with ErrNotConnected. The waits are asked for: WaitReady (one server, before a call)
// and WaitConnecting (every server still making its first attempt, before a task's first
// request).
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/watch"
)

// Status is a server's connection state.
type Status string

// Statuses.
const (
	StatusConnecting   Status = "connecting"
	StatusConnected    Status = "connected"
	StatusDisconnected Status = "disconnected"
	StatusDisabled     Status = "disabled"
)

// Tool is a tool a server offers.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is the tool's JSON Schema as the server sent it.
	InputSchema string `json:"inputSchema"`
	// AutoApprove is set when the tool is on the server's autoApprove list.
	AutoApprove bool `json:"autoApprove"`
	// ReadOnly is set when the server marks the tool as one that changes nothing (its
	// readOnlyHint annotation); unknown counts as not read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// Resource is a fixed resource a server offers.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Template is a parameterised resource (RFC 6570 URI template).
type Template struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Prompt is a prompt template a server offers.
type Prompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Server is a snapshot of one configured server.
type Server struct {
	Name   string       `json:"name"`
	Config ServerConfig `json:"config"`
	Status Status       `json:"status"`
	// Error is the last failure (bad entry, failed start, crash, timeout); "" when none.
	Error string `json:"error,omitempty"`
	// Stderr is the end of what a stdio server wrote to stderr.
	Stderr string `json:"stderr,omitempty"`
	// Instructions is what the server asked clients to tell the model.
	Instructions string     `json:"instructions,omitempty"`
	Tools        []Tool     `json:"tools"`
	Resources    []Resource `json:"resources"`
	Templates    []Template `json:"resourceTemplates"`
	Prompts      []Prompt   `json:"prompts"`
}

// Options configure a hub.
type Options struct {
	// SettingsPath is the mcp_settings.json to read and watch ("": no servers).
	SettingsPath string
	// ClientVersion is sent to servers with the name "cairn".
	ClientVersion string
	// Logger is the daemon log: the hub's messages and those of the MCP library's transports
	// go there, never to the process's stdout or stderr (default: discarded).
	Logger *slog.Logger
	// RetryBase and RetryMax bound the reconnect backoff (defaults 2 s and 1 min).
	RetryBase, RetryMax time.Duration
	// NoWatch leaves the settings file unwatched (one-shot CLI commands).
	NoWatch bool
	// Watch is the daemon's file-system hub the settings file is watched through; nil: the
	// MCP hub makes one of its own and closes it with itself.
	Watch *watch.Hub
	// HTTPClient carries the requests to SSE and Streamable HTTP servers (core/egress: the
	// proxy and the extra authorities; nil: the library's own client).
	HTTPClient *http.Client
	// Extra is a settings document of the same shape (`{"mcpServers": {…}}`) whose servers
	// join the file's: a task's own servers (an ACP session's, README "Use Cairn in Zed,
	// JetBrains, Neovim"). A server named in both is Extra's. It is never written anywhere.
	Extra []byte
	// Sandbox, when set, is asked at each start of a stdio server what the server's sandbox
	// starts from (docs/sandbox.md); it returns nil to run the server plainly (the user
	// turned the sandbox off, or none can be set up here: the function logs that). A server
	// gets a profile of its own from it: the Workspace tier whose roots are the entry's
	// writablePaths, the network on, the build caches writable and a private temp folder.
	Sandbox func() *sandbox.Base
	// Shared, when set, is the daemon's hub, whose servers this hub uses rather than start
	// them a second time: this hub then starts only Extra's servers and does not read
	// SettingsPath, a name in both is Extra's, and closing this hub leaves Shared's servers
	// running (a task's own hub, README "Use Cairn in Zed, JetBrains, Neovim").
	Shared *Hub
}

// Hub manages every configured server. Its methods are safe for concurrent use.
type Hub struct {
	opts  Options
	token atomic.Int64 // progress tokens

	// mu guards the fields below.
	mu          sync.Mutex
	conns       map[string]*conn
	settingsErr error
	started     bool
	closed      bool
	subs        map[chan struct{}]struct{}
	// sharedStops end the subscriptions to Shared's changes, by the subscription they feed.
	sharedStops map[chan struct{}]func()
	stopWatch   func() error

	// bg counts goroutines the hub started (connections, watcher, stops); Close waits for them.
	bg sync.WaitGroup
}

// New returns a hub; it does nothing until Start.
func New(opts Options) *Hub {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 2 * time.Second
	}
	if opts.RetryMax < opts.RetryBase {
		opts.RetryMax = max(time.Minute, opts.RetryBase)
	}
	return &Hub{opts: opts, conns: map[string]*conn{}, subs: map[chan struct{}]struct{}{}, sharedStops: map[chan struct{}]func(){}}
}

// SettingsPath is the settings file the hub reads.
func (h *Hub) SettingsPath() string { return h.opts.SettingsPath }

// Start reads the settings and starts connecting every enabled server in the background; it
// returns without waiting for any server. The settings file is watched unless NoWatch is set,
// from a moment after Start returns; a change saved meanwhile is read then.
func (h *Hub) Start() {
	h.mu.Lock()
	if h.started || h.closed {
		h.mu.Unlock()
		return
	}
	h.started = true
	h.mu.Unlock()
	if err := h.Reload(); err != nil {
		h.opts.Logger.Warn("mcp: settings", "err", err)
	}
	if h.opts.NoWatch || h.opts.SettingsPath == "" {
		return
	}
	// The watch is set up beside the caller, which is the daemon's start: the file system's
	// watcher starts with it (docs/performance.md, "P5 — the daemon at rest"). A change saved
	// before the watch is in place is read by the one reload it makes once it is.
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.bg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.bg.Done()
		if err := h.watch(); err != nil {
			h.opts.Logger.Warn("mcp: watching settings", "err", err)
		}
	}()
}

// SettingsError is why the settings file as a whole could not be used ("" when it could).
// Servers keep the configuration they had before the file broke.
func (h *Hub) SettingsError() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.settingsErr == nil {
		return ""
	}
	return h.settingsErr.Error()
}

// Reload reads the settings file again and applies the differences: new and changed servers
// (re)connect, removed ones stop, a change of only autoApprove or timeout applies in place.
// A file that does not parse leaves every server as it was and is reported by SettingsError.
func (h *Hub) Reload() error {
	var data []byte
	if h.opts.SettingsPath != "" && h.opts.Shared == nil {
		var err error
		data, err = os.ReadFile(h.opts.SettingsPath)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return h.setSettingsErr(fmt.Errorf("mcp: reading settings: %w", err))
		}
	}
	entries, err := parseSettings(data)
	if err != nil {
		return h.setSettingsErr(err)
	}
	if len(h.opts.Extra) > 0 {
		extra, err := parseSettings(h.opts.Extra)
		if err != nil {
			return h.setSettingsErr(err)
		}
		entries = joinEntries(entries, extra)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	h.settingsErr = nil
	seen := map[string]bool{}
	var stop []*conn
	for _, e := range entries {
		seen[e.Name] = true
		old, ok := h.conns[e.Name]
		if ok && old.sameAs(e) {
			old.update(e.Config)
			continue
		}
		if ok {
			stop = append(stop, old)
		}
		c := newConn(h, e)
		h.conns[e.Name] = c
		h.bg.Add(1)
		go func() {
			defer h.bg.Done()
			defer h.recoverBug(c, "connecting")
			c.run()
		}()
	}
	for name, c := range h.conns {
		if !seen[name] {
			stop = append(stop, c)
			delete(h.conns, name)
		}
	}
	h.bg.Add(len(stop))
	h.mu.Unlock()
	for _, c := range stop {
		go func() {
			defer h.bg.Done()
			defer h.recoverBug(c, "stopping")
			c.stop()
		}()
	}
	h.changed()
	return nil
}

// recoverBug turns a panic on a server's goroutine into a bug report in the daemon log and a
// server shown as disconnected with that error, never a dead daemon (the same rule as a
// task's goroutines).
func (h *Hub) recoverBug(c *conn, doing string) {
	r := recover()
	if r == nil {
		return
	}
	h.opts.Logger.Error("bug: mcp server goroutine panicked", "server", c.name, "doing", doing, "panic", r, "stack", string(debug.Stack()))
	c.setStatus(StatusDisconnected, fmt.Errorf("internal error while %s (a bug in Cairn; see the daemon log): %v", doing, r))
	h.changed()
}

func (h *Hub) setSettingsErr(err error) error {
	h.mu.Lock()
	h.settingsErr = err
	h.mu.Unlock()
	h.changed()
	return err
}

// Close stops every server and the watcher, and waits for them (or ctx).
func (h *Hub) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	conns := h.conns
	h.conns = map[string]*conn{}
	stopWatch := h.stopWatch
	for ch := range h.subs {
		close(ch)
	}
	h.subs = map[chan struct{}]struct{}{}
	stops := h.sharedStops
	h.sharedStops = map[chan struct{}]func(){}
	h.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	var werr error
	if stopWatch != nil {
		werr = stopWatch()
	}
	for _, c := range conns {
		c.cancel()
	}
	done := make(chan struct{})
	go func() {
		h.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return errors.Join(werr, fmt.Errorf("mcp: closing servers: %w", ctx.Err()))
	}
	if werr != nil {
		return fmt.Errorf("mcp: closing the settings watcher: %w", werr)
	}
	return nil
}

// Servers returns every configured server, sorted by name.
func (h *Hub) Servers() []Server {
	conns := h.allConns()
	out := make([]Server, 0, len(conns))
	for _, c := range conns {
		out = append(out, c.snapshot())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WaitConnecting waits while servers are making their first connection attempt (since the
// hub read their entry, or since a Restart), each for at most its own timeout counted from
// this call, so that a task's first request can describe them (docs/architecture.md, "MCP").
// A server that failed and is retrying with backoff is not waited for: a broken server delays
// no task beyond its first attempt. It returns nil when nothing is left to wait for, ctx's
// error when ctx ends first, and ErrClosed when the hub closes meanwhile.
func (h *Hub) WaitConnecting(ctx context.Context) error {
	changes, cancel := h.Subscribe()
	defer cancel()
	start := time.Now()
	for {
		conns := h.allConns()
		now := time.Now()
		var until time.Time // the nearest deadline among the servers still awaited
		for _, c := range conns {
			if !c.firstAttempt() {
				continue
			}
			deadline := start.Add(c.timeout())
			if deadline.After(now) && (until.IsZero() || deadline.Before(until)) {
				until = deadline
			}
		}
		if until.IsZero() {
			return nil
		}
		timer := time.NewTimer(until.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case _, ok := <-changes:
			timer.Stop()
			if !ok {
				return ErrClosed
			}
		case <-timer.C:
		}
	}
}

// Server returns one server's snapshot.
func (h *Hub) Server(name string) (Server, error) {
	c, err := h.conn(name)
	if err != nil {
		return Server{}, err
	}
	return c.snapshot(), nil
}

// Subscribe returns a channel that receives a signal after any change of any server (status,
// lists, settings); signals coalesce, so a reader calls Servers for the state. No change is
// lost: a change after the last receive always leaves a signal pending. cancel unsubscribes;
// Close closes the channel.
func (h *Hub) Subscribe() (changes <-chan struct{}, cancel func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(ch)
		return ch, func() {}
	}
	h.subs[ch] = struct{}{}
	unsubscribe := func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			delete(h.sharedStops, ch)
			close(ch)
		}
	}
	if h.opts.Shared == nil {
		return ch, unsubscribe
	}
	// Shared's changes are this hub's too: they are passed on until the subscription ends
	// (cancel, or this hub's Close, stops Shared's subscription and with it the goroutine).
	shared, stopShared := h.opts.Shared.Subscribe()
	h.sharedStops[ch] = stopShared
	go func() {
		for range shared {
			h.mu.Lock()
			if _, ok := h.subs[ch]; ok {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
			h.mu.Unlock()
		}
	}()
	return ch, func() {
		unsubscribe()
		stopShared()
	}
}

// changed signals every subscriber.
func (h *Hub) changed() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (h *Hub) conn(name string) (*conn, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	c, ok := h.conns[name]
	h.mu.Unlock()
	if !ok && h.opts.Shared != nil {
		return h.opts.Shared.conn(name)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return c, nil
}

// allConns is every server the hub offers: its own, then Shared's it does not name.
func (h *Hub) allConns() []*conn {
	h.mu.Lock()
	conns := make([]*conn, 0, len(h.conns))
	own := map[string]bool{}
	for name, c := range h.conns {
		conns = append(conns, c)
		own[name] = true
	}
	closed := h.closed
	h.mu.Unlock()
	if sh := h.opts.Shared; sh != nil && !closed {
		for _, c := range sh.allConns() {
			if !own[c.name] {
				conns = append(conns, c)
			}
		}
	}
	return conns
}

// Restart drops a server's connection and connects again now (also ending a backoff wait).
func (h *Hub) Restart(name string) error {
	c, err := h.conn(name)
	if err != nil {
		return err
	}
	c.restart()
	return nil
}

// ToolAutoApproved reports whether a tool is on its server's autoApprove list.
func (h *Hub) ToolAutoApproved(server, tool string) bool {
	c, err := h.conn(server)
	if err != nil {
		return false
	}
	return c.autoApproved(tool)
}

// nextToken returns a fresh progress token.
func (h *Hub) nextToken() string {
	return "cairn-" + strconv.FormatInt(h.token.Add(1), 10)
}
