package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/cairnhq/cairn/core/internal/tailbuf"
	"github.com/cairnhq/cairn/core/sandbox"
)

// conn is one configured server: a goroutine that connects, waits for the session to end,
// and reconnects with backoff until the conn is stopped.
type conn struct {
	hub    *Hub
	name   string
	cfgErr error // the entry is unusable; never connects
	cancel context.CancelFunc
	ctx    func() context.Context // the conn's lifetime context, for run only
	done   chan struct{}
	kick   chan struct{} // restart now (capacity 1)
	stderr *tailbuf.Buffer

	// mu guards the fields below.
	mu           sync.Mutex
	cfg          ServerConfig
	status       Status
	lastErr      string
	instructions string
	tools        []Tool
	resources    []Resource
	templates    []Template
	prompts      []Prompt
	sess         *session // nil unless connected
	schemas      map[string]*jsonschema.Resolved
	progress     map[string]func(Progress)

	// first is set while the conn makes its first connection attempt (since the hub read
	// its entry, or since a Restart); the attempt's end, success or failure, clears it.
	first bool
}

func newConn(h *Hub, e entry) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{hub: h, name: e.Name, cfg: e.Config, cfgErr: e.Err, cancel: cancel,
		ctx: func() context.Context { return ctx }, done: make(chan struct{}), kick: make(chan struct{}, 1),
		stderr: tailbuf.New(4096), progress: map[string]func(Progress){}}
	switch {
	case e.Err != nil:
		c.status, c.lastErr = StatusDisconnected, e.Err.Error()
	case e.Config.Disabled:
		c.status = StatusDisabled
	default:
		c.status, c.first = StatusConnecting, true
	}
	return c
}

// sameAs reports whether e can be applied to the running conn without reconnecting.
func (c *conn) sameAs(e entry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.Err != nil || c.cfgErr != nil {
		return false
	}
	return c.cfg.Disabled == e.Config.Disabled && sameConnection(c.cfg, e.Config)
}

// update applies a change of autoApprove or timeout.
func (c *conn) update(cfg ServerConfig) {
	c.mu.Lock()
	c.cfg = cfg
	for i := range c.tools {
		c.tools[i].AutoApprove = slices.Contains(cfg.AutoApprove, c.tools[i].Name)
	}
	c.mu.Unlock()
}

func (c *conn) config() ServerConfig {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg
}

func (c *conn) autoApproved(tool string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.cfg.AutoApprove, tool)
}

// firstAttempt reports whether the conn is connecting for the first time (see conn.first).
func (c *conn) firstAttempt() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first && c.status == StatusConnecting
}

func (c *conn) snapshot() Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Server{Name: c.name, Config: c.cfg, Status: c.status, Error: c.lastErr, Stderr: c.stderr.String(),
		Instructions: c.instructions, Tools: slices.Clone(c.tools), Resources: slices.Clone(c.resources),
		Templates: slices.Clone(c.templates), Prompts: slices.Clone(c.prompts)}
}

func (c *conn) setStatus(s Status, err error) {
	c.mu.Lock()
	c.status = s
	if s != StatusConnecting {
		c.first = false
	}
	if err != nil {
		c.lastErr = err.Error()
	} else if s == StatusConnected {
		c.lastErr = ""
	}
	c.mu.Unlock()
	c.hub.changed()
}

// restart drops the session at once (calls fail fast from here on) and asks the conn's
// goroutine to reconnect.
func (c *conn) restart() {
	c.mu.Lock()
	if c.sess != nil {
		c.sess = nil
		c.status = StatusConnecting
	}
	c.first = true
	c.mu.Unlock()
	c.hub.changed()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// stop ends the conn and waits for its goroutine (which closes the session).
func (c *conn) stop() {
	c.cancel()
	<-c.done
}

// run is the conn's goroutine.
func (c *conn) run() {
	defer close(c.done)
	ctx := c.ctx()
	if c.cfgErr != nil || c.config().Disabled {
		c.hub.changed()
		return
	}
	delay := c.hub.opts.RetryBase
	for {
		c.setStatus(StatusConnecting, nil)
		s, err := c.connect(ctx)
		kicked := false
		if err == nil {
			delay = c.hub.opts.RetryBase
			c.mu.Lock()
			c.sess = s
			c.mu.Unlock()
			c.setStatus(StatusConnected, nil)
			kicked, err = c.serve(ctx, s)
			c.mu.Lock()
			c.sess = nil
			c.mu.Unlock()
			if cerr := s.close(); cerr != nil {
				c.hub.opts.Logger.Debug("mcp: closing session", "server", c.name, "err", cerr)
			}
		}
		if ctx.Err() != nil {
			c.setStatus(StatusDisconnected, nil)
			return
		}
		if kicked {
			continue
		}
		c.setStatus(StatusDisconnected, err)
		c.hub.opts.Logger.Info("mcp: server disconnected", "server", c.name, "err", err, "retry_in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			c.setStatus(StatusDisconnected, nil)
			return
		case <-c.kick:
			t.Stop()
		case <-t.C:
			delay = min(delay*2, c.hub.opts.RetryMax)
		}
	}
}

// serve waits while a session is up, refreshing lists when the server says they changed. It
// returns why the session ended, and whether a restart was asked for.
func (c *conn) serve(ctx context.Context, s *session) (bool, error) {
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case <-c.kick:
			return true, nil
		case <-s.lost:
			return false, s.lostErr()
		case what := <-s.refresh:
			rctx, cancel := context.WithTimeout(ctx, c.timeout())
			err := c.list(rctx, s, what)
			cancel()
			if err != nil {
				c.hub.opts.Logger.Warn("mcp: refreshing lists", "server", c.name, "err", err)
			}
			c.hub.changed()
		}
	}
}

func (c *conn) timeout() time.Duration {
	return time.Duration(c.config().timeoutSeconds()) * time.Second
}

// connect starts a session: transport, initialize, lists, all within the server's timeout.
func (c *conn) connect(ctx context.Context) (*session, error) {
	cfg := c.config()
	var box *sandbox.Base
	if cfg.transport() == TypeStdio && c.hub.opts.Sandbox != nil {
		box = c.hub.opts.Sandbox()
	}
	s, err := dial(ctx, cfg, box, c.stderr, c.hub.opts.HTTPClient, c.hub.opts.Logger.With("server", c.name, "from", "mcp-go"))
	if err != nil {
		return nil, err
	}
	s.client.OnNotification(func(n mcp.JSONRPCNotification) { c.notify(s, n) })
	ictx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	err = c.initialize(ictx, s)
	if err == nil {
		err = c.list(ictx, s, listAll)
	}
	if err != nil {
		cerr := s.close()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("the server did not answer within %d s", cfg.timeoutSeconds())
		}
		if select1(s.lost) {
			err = errors.Join(s.lostErr(), err)
		}
		return nil, errors.Join(err, cerr)
	}
	return s, nil
}

func select1(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (c *conn) initialize(ctx context.Context, s *session) error {
	req := mcp.InitializeRequest{}
	// The handshake revision every server speaks today; mcp-go then skips its probe for the
	// stateless revision (one round trip fewer on every start).
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "cairn", Version: c.hub.opts.ClientVersion}
	res, err := s.client.Initialize(ctx, req)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s.caps = res.Capabilities
	c.mu.Lock()
	c.instructions = res.Instructions
	c.mu.Unlock()
	return nil
}

// Lists to refresh, as bits.
const (
	listTools = 1 << iota
	listResources
	listPrompts
	listAll = listTools | listResources | listPrompts
)

// list fetches the lists the server offers.
func (c *conn) list(ctx context.Context, s *session, what int) error {
	var errs []error
	if what&listTools != 0 && s.caps.Tools != nil {
		res, err := s.client.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			errs = append(errs, fmt.Errorf("tools/list: %w", err))
		} else {
			c.mu.Lock()
			c.tools = c.tools[:0:0]
			for _, t := range res.Tools {
				schema, err := json.Marshal(t)
				var raw struct {
					InputSchema json.RawMessage `json:"inputSchema"`
				}
				if err == nil {
					err = json.Unmarshal(schema, &raw)
				}
				if err != nil || len(raw.InputSchema) == 0 {
					raw.InputSchema = json.RawMessage(`{"type":"object"}`)
				}
				c.tools = append(c.tools, Tool{Name: t.Name, Description: t.Description, InputSchema: string(raw.InputSchema),
					AutoApprove: slices.Contains(c.cfg.AutoApprove, t.Name),
					ReadOnly:    t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint})
			}
			c.schemas = nil
			c.mu.Unlock()
		}
	}
	if what&listResources != 0 && s.caps.Resources != nil {
		res, err := s.client.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			errs = append(errs, fmt.Errorf("resources/list: %w", err))
		} else {
			rs := make([]Resource, 0, len(res.Resources))
			for _, r := range res.Resources {
				rs = append(rs, Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
			}
			c.mu.Lock()
			c.resources = rs
			c.mu.Unlock()
		}
		tres, err := s.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		if err != nil {
			errs = append(errs, fmt.Errorf("resources/templates/list: %w", err))
		} else {
			ts := make([]Template, 0, len(tres.ResourceTemplates))
			for _, t := range tres.ResourceTemplates {
				uri := ""
				if t.URITemplate != nil && t.URITemplate.Template != nil {
					uri = t.URITemplate.Raw()
				}
				ts = append(ts, Template{URITemplate: uri, Name: t.Name, Description: t.Description, MIMEType: t.MIMEType})
			}
			c.mu.Lock()
			c.templates = ts
			c.mu.Unlock()
		}
	}
	if what&listPrompts != 0 && s.caps.Prompts != nil {
		res, err := s.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			errs = append(errs, fmt.Errorf("prompts/list: %w", err))
		} else {
			ps := make([]Prompt, 0, len(res.Prompts))
			for _, p := range res.Prompts {
				pp := Prompt{Name: p.Name, Description: p.Description}
				for _, a := range p.Arguments {
					pp.Arguments = append(pp.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
				ps = append(ps, pp)
			}
			c.mu.Lock()
			c.prompts = ps
			c.mu.Unlock()
		}
	}
	return errors.Join(errs...)
}

// notify handles a server notification. It runs on the transport's reader, so it never
// calls the server itself: list refreshes go to the conn's goroutine.
func (c *conn) notify(s *session, n mcp.JSONRPCNotification) {
	what := 0
	switch n.Method {
	case mcp.MethodNotificationToolsListChanged:
		what = listTools
	case mcp.MethodNotificationResourcesListChanged:
		what = listResources
	case mcp.MethodNotificationPromptsListChanged:
		what = listPrompts
	case string(mcp.MethodNotificationProgress):
		c.onProgress(n)
		return
	default:
		return
	}
	s.requestRefresh(what)
}

func (c *conn) onProgress(n mcp.JSONRPCNotification) {
	fields := n.Params.AdditionalFields
	token := fmt.Sprint(fields["progressToken"])
	c.mu.Lock()
	fn := c.progress[token]
	c.mu.Unlock()
	if fn == nil {
		return
	}
	p := Progress{}
	if v, ok := fields["progress"].(float64); ok {
		p.Progress = v
	}
	if v, ok := fields["total"].(float64); ok {
		p.Total = v
	}
	if v, ok := fields["message"].(string); ok {
		p.Message = v
	}
	fn(p)
}

// session returns the live session, or why there is none.
func (c *conn) session() (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil {
		msg := string(c.status)
		if c.lastErr != "" {
			msg += ": " + c.lastErr
		}
		return nil, fmt.Errorf("%w: %q is %s", ErrNotConnected, c.name, msg)
	}
	return c.sess, nil
}

// session is one connection to a server.
type session struct {
	client  *client.Client
	caps    mcp.ServerCapabilities
	refresh chan int // lists to refresh (bits); the conn's goroutine drains it
	// pending accumulates refresh bits while the conn is busy.
	lost     chan struct{}
	lostOnce sync.Once
	// mu guards err and pending.
	mu      sync.Mutex
	err     error
	pending int
	closeFn func() error
}

func newSession() *session {
	return &session{refresh: make(chan int, 1), lost: make(chan struct{})}
}

func (s *session) requestRefresh(what int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending |= what
	for {
		select {
		case s.refresh <- s.pending:
			s.pending = 0
			return
		default:
		}
		// A refresh is already queued: merge into it.
		select {
		case queued := <-s.refresh:
			s.pending |= queued
		default:
		}
	}
}

// markLost records why the session ended (the first reason wins).
func (s *session) markLost(err error) {
	s.lostOnce.Do(func() {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.lost)
	})
}

func (s *session) lostErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return errors.New("the connection was lost")
	}
	return s.err
}

func (s *session) close() error {
	if s.closeFn == nil {
		return nil
	}
	return s.closeFn()
}
