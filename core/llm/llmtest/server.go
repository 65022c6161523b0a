// Package llmtest is the fake model: a real HTTP server speaking OpenAI's streaming
// chat-completions protocol (SSE), playing a Script of turns with chunking, delays, usage,
// faults (HTTP errors with Retry-After, cut connections, malformed events, stalls) and
// expectations about the requests it receives. It records every request.
//
// Go tests start it in process with New; server/cmd/fakellm serves the same Handler on a port
// for TypeScript and E2E tests, which also use its /_requests and /_script endpoints.
package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Request is one chat request as the fake model received it.
type Request struct {
	Model        string    `json:"model"`
	Messages     []Message `json:"messages"`
	MaxTokens    int       `json:"max_tokens,omitempty"`
	IncludeUsage bool      `json:"include_usage"`
	// Tools are the names of the functions offered (native tool calling).
	Tools []string `json:"tools,omitempty"`
	// ReasoningEffort is the request's reasoning_effort.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	Turn            int    `json:"turn"` // index of the turn that answered; -1 for OnEnd
	// PromptTokens and CachedTokens are the estimated usage under Script.PrefixCache.
	PromptTokens int64           `json:"prompt_tokens,omitempty"`
	CachedTokens int64           `json:"cached_tokens,omitempty"`
	Raw          json.RawMessage `json:"raw"`
}

// Message is one message of a recorded request, with its text parts joined.
type Message struct {
	Role   string   `json:"role"`
	Text   string   `json:"text"`
	Images []string `json:"images,omitempty"` // image URLs (data URLs for inline images)
	// ToolCalls are an assistant message's native calls; ToolCallID is set on a role "tool"
	// message, the result of that call.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// LastUser is the text of the last user message, "" if there is none.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return ""
}

// Server plays a script. Its methods are safe for concurrent use.
type Server struct {
	t   testing.TB // nil outside Go tests
	srv *httptest.Server
	// done ends stalls and hangs when the server closes, so Close never waits on them.
	done      chan struct{}
	closeOnce sync.Once

	mu sync.Mutex // guards the fields below
	// script and cursor: the next request gets turn cursor, repeat of it served so far.
	script   Script
	cursor   int
	repeat   int
	routes   []place // the place in each of script.Routes
	gates    map[string]*gate
	requests []Request
	failures []error
	// defaultEnd answers past the script when the script has no OnEnd (fakellm's demos).
	defaultEnd *Turn
}

// NewHandler returns a Server that is not listening: serve it with http.Serve, as fakellm
// does. Call Close when done to release stalled handlers.
func NewHandler(script Script) *Server {
	return &Server{script: script, done: make(chan struct{})}
}

// New starts a Server on a loopback port. With a non-nil t, expectation failures are also
// reported with t.Errorf and the server closes at the end of the test.
func New(t testing.TB, script Script) *Server {
	s := NewHandler(script)
	s.t = t
	s.srv = httptest.NewServer(s)
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL is the base URL to configure a client with, ending in /v1.
func (s *Server) URL() string {
	if s.srv == nil {
		return ""
	}
	return s.srv.URL + "/v1"
}

// Close stops the server; stalled responses end at once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	if s.srv != nil {
		s.srv.Close()
	}
}

// SetScript replaces the script and restarts it from the first turn. Recorded requests and
// failures are kept.
func (s *Server) SetScript(script Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.cursor, s.repeat = script, 0, 0
	s.routes, s.gates = nil, nil
}

// place is how far a route's turns have been served.
type place struct{ cursor, repeat int }

// gate is the state of a Gate by name.
type gate struct {
	arrived int
	open    chan struct{} // closed once Count requests arrived
}

// GateWait is how long a gate waits for the rest of its requests before it records a
// failure and lets the ones it holds go.
const GateWait = 30 * time.Second

// pass holds a request at g until it opens (true), or the client gives up (false).
func (s *Server) pass(r *http.Request, g Gate, n int) bool {
	s.mu.Lock()
	if s.gates == nil {
		s.gates = map[string]*gate{}
	}
	st := s.gates[g.Name]
	if st == nil {
		st = &gate{open: make(chan struct{})}
		s.gates[g.Name] = st
	}
	st.arrived++
	if st.arrived == g.Count {
		close(st.open)
	}
	s.mu.Unlock()
	timer := time.NewTimer(GateWait)
	defer timer.Stop()
	select {
	case <-st.open:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	case <-timer.C:
		s.fail(fmt.Errorf("request %d: gate %q: fewer than %d requests arrived together", n, g.Name, g.Count))
		return true
	}
}

// Requests returns every chat request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Err joins every expectation failure so far; nil when all held.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.failures...)
}

// Remaining is how many scripted requests are still to come.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := left(s.script.Turns, place{s.cursor, s.repeat})
	for i, r := range s.script.Routes {
		var at place
		if i < len(s.routes) {
			at = s.routes[i]
		}
		n += left(r.Turns, at)
	}
	return n
}

// left counts the requests turns will still answer from at.
func left(turns []Turn, at place) int {
	n := 0
	for i := at.cursor; i < len(turns); i++ {
		n += max(turns[i].Times, 1)
	}
	if at.cursor < len(turns) {
		n -= at.repeat
	}
	return n
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	s.failures = append(s.failures, err)
	s.mu.Unlock()
	if s.t != nil {
		s.t.Errorf("llmtest: %v", err)
	}
}

// ServeHTTP routes the OpenAI endpoints and the control endpoints fakellm exposes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		s.chat(w, r)
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		s.models(w)
	case r.Method == http.MethodGet && path == "/_requests":
		writeJSON(w, http.StatusOK, s.Requests())
	case r.Method == http.MethodPost && path == "/_script":
		script, err := LoadScript(r.Body)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		s.SetScript(script)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet && path == "/_errors":
		var msgs []string
		if err := s.Err(); err != nil {
			msgs = strings.Split(err.Error(), "\n")
		}
		writeJSON(w, http.StatusOK, msgs)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) models(w http.ResponseWriter) {
	s.mu.Lock()
	ids := s.script.Models
	s.mu.Unlock()
	if len(ids) == 0 {
		ids = []string{"fake-model"}
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", OwnedBy: "llmtest"})
	}
	writeJSON(w, http.StatusOK, list)
}

// next picks the turn for a request and records it; it returns the turn, the request's number
// and the turn's index in its script (-1 past the end).
func (s *Server) next(req Request) (Turn, int, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, ok := -1, false
	var turn Turn
	turns, at := s.script.Turns, &place{cursor: s.cursor, repeat: s.repeat}
	if i := s.routeOf(req); i >= 0 {
		if len(s.routes) < len(s.script.Routes) {
			s.routes = append(s.routes, make([]place, len(s.script.Routes)-len(s.routes))...)
		}
		turns, at = s.script.Routes[i].Turns, &s.routes[i]
	}
	if at.cursor < len(turns) {
		idx, ok, turn = at.cursor, true, turns[at.cursor]
		at.repeat++
		if at.repeat >= max(turn.Times, 1) {
			at.cursor, at.repeat = at.cursor+1, 0
		}
	} else if s.script.OnEnd != nil {
		ok, turn = true, *s.script.OnEnd
	} else if s.defaultEnd != nil {
		ok, turn = true, *s.defaultEnd
	}
	if s.routeOf(req) < 0 {
		s.cursor, s.repeat = at.cursor, at.repeat
	}
	req.Turn = idx
	if s.script.PrefixCache {
		req.PromptTokens, req.CachedTokens = prefixUsage(s.requests, req)
	}
	if s.script.ForgetText {
		req = forgetText(req)
	}
	s.requests = append(s.requests, req)
	return turn, len(s.requests), idx, ok
}

// forgetText is req without its text, its prompt estimate kept for the usage event.
func forgetText(req Request) Request {
	if req.PromptTokens == 0 {
		req.PromptTokens = estimatePrompt(req)
	}
	req.Messages, req.Raw = nil, nil
	return req
}

// routeOf is the index of the route that answers req, -1 for the main turns.
func (s *Server) routeOf(req Request) int {
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = m.Text
			break
		}
	}
	for i, r := range s.script.Routes {
		if r.FirstUserContains != "" && strings.Contains(first, r.FirstUserContains) {
			return i
		}
	}
	return -1
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	req, err := decodeRequest(r)
	if err != nil && (errors.Is(err, io.ErrUnexpectedEOF) || r.Context().Err() != nil) {
		return // the client went away while sending (a killed daemon): not a script failure
	}
	if err != nil {
		s.fail(fmt.Errorf("undecodable request: %w", err))
		writeError(w, http.StatusBadRequest, "", err.Error())
		return
	}
	turn, n, idx, ok := s.next(req)
	if !ok {
		s.fail(fmt.Errorf("request %d: the script has no turn left", n))
		writeError(w, http.StatusInternalServerError, "", "llmtest: script exhausted")
		return
	}
	if turn.Expect != nil {
		for _, e := range turn.Expect.check(req) {
			s.fail(fmt.Errorf("request %d (turn %d): %s", n, idx, e))
		}
	}
	if turn.Gate != nil && !s.pass(r, *turn.Gate, n) {
		return
	}
	if f := turn.Fault; f != nil && f.Status != 0 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		writeError(w, f.Status, f.Body, fmt.Sprintf("llmtest: scripted HTTP %d", f.Status))
		return
	}
	s.stream(w, r, req, turn, n)
}

func (e *Expect) check(req Request) []string {
	var out []string
	if e.Model != "" && req.Model != e.Model {
		out = append(out, fmt.Sprintf("model is %q, want %q", req.Model, e.Model))
	}
	if e.Messages != 0 && len(req.Messages) != e.Messages {
		out = append(out, fmt.Sprintf("%d messages, want %d", len(req.Messages), e.Messages))
	}
	last := req.LastUser()
	var all strings.Builder
	for _, m := range req.Messages {
		all.WriteString(m.Text)
		all.WriteByte('\n')
	}
	for _, sub := range e.LastUserContains {
		if !strings.Contains(last, sub) {
			out = append(out, fmt.Sprintf("last user message does not contain %q", sub))
		}
	}
	for _, sub := range e.LastUserNotContains {
		if strings.Contains(last, sub) {
			out = append(out, fmt.Sprintf("last user message contains %q", sub))
		}
	}
	for _, sub := range e.Contains {
		if !strings.Contains(all.String(), sub) {
			out = append(out, fmt.Sprintf("request does not contain %q", sub))
		}
	}
	for _, sub := range e.NotContains {
		if strings.Contains(all.String(), sub) {
			out = append(out, fmt.Sprintf("request contains %q", sub))
		}
	}
	return out
}

// chunks splits text into pieces of at most size bytes without splitting a UTF-8 sequence (a
// rune longer than size gets a piece of its own). size <= 0 keeps the text whole.
func chunks(text string, size int) []string {
	if text == "" {
		return nil
	}
	if size <= 0 {
		return []string{text}
	}
	var out []string
	for len(text) > 0 {
		end := min(size, len(text))
		for end < len(text) && end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		if end == 0 {
			_, end = utf8.DecodeRuneInString(text)
		}
		out = append(out, text[:end])
		text = text[end:]
	}
	return out
}

// runeFloor moves i back to the start of the rune it falls in.
func runeFloor(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i < len(s) && i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client hanging up is not the fake's problem
}

func writeError(w http.ResponseWriter, status int, body, msg string) {
	if body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
		return
	}
	typ := "server_error"
	if status < 500 {
		typ = "invalid_request_error"
	}
	if status == http.StatusTooManyRequests {
		typ = "rate_limit_exceeded"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": typ}})
}

// sleep waits d, or until the client gives up (false: stop streaming). When the server closes
// meanwhile, the connection drops the way a dying server's would.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	if d < 0 { // hang: only the client or the server ends this
		t.Stop()
	}
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		panic(http.ErrAbortHandler)
	}
}
