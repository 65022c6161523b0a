package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// client is one running language server: its process, its connection, the documents it was
// told about and the diagnostics it published.
type client struct {
	lang Language
	root string
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	// end ends the connection's reader and the handshake, once the server was shut down.
	end context.CancelFunc
	// ready is closed once the server answered initialize (or failed to: err is then set).
	ready chan struct{}
	err   error
	// stopped is closed when the server's connection ended (it exited, crashed or was shut).
	stopped chan struct{}

	// mu guards docs, published, progress, changed, lastUse and gone.
	mu sync.Mutex
	// docs are the open documents by URI.
	docs map[uri.URI]*doc
	// published are the last diagnostics the server published, by URI.
	published map[uri.URI]publication
	// progress counts the server's work in progress ($/progress begun and not ended).
	progress int
	// changed is closed and replaced whenever something above changes.
	changed chan struct{}
	// lastUse is when a task last asked something of the server (the idle stop's clock).
	lastUse time.Time
	// gone says why the server can no longer answer ("" while it can).
	gone string
}

// doc is an open document: the version and text the server was last given.
type doc struct {
	version int32
	text    string
	// sent is when the server was last given the text: a publication after it is about it.
	sent uint64
}

// publication is one publishDiagnostics: its diagnostics, the document version it was about
// (0: the server did not say) and its order among the client's events.
type publication struct {
	version int32
	items   []protocol.Diagnostic
	seq     uint64
}

// seqs numbers the clients' events, so a publication can be said to follow a change.
var seqs struct {
	mu sync.Mutex
	n  uint64
}

func nextSeq() uint64 {
	seqs.mu.Lock()
	defer seqs.mu.Unlock()
	seqs.n++
	return seqs.n
}

// rwc joins a process's stdout and stdin into the stream the connection reads and writes.
type rwc struct {
	io.ReadCloser
	io.WriteCloser
}

func (p rwc) Close() error { return errors.Join(p.ReadCloser.Close(), p.WriteCloser.Close()) }

// boundedWriter is a server's input, where each write must finish within wait: a server that
// stops reading (hung, or stopped by a debugger) fills the pipe, and a write that never
// returns would hold the edit that waits for its diagnostics. A write cut short fails the
// connection, and the server is then unavailable. Where the pipe takes no deadline (the
// platform has no poller for it), writes are unbounded as before.
type boundedWriter struct {
	f    *os.File
	wait time.Duration
}

func (w boundedWriter) Write(p []byte) (int, error) {
	_ = w.f.SetWriteDeadline(time.Now().Add(w.wait)) // refused where unsupported: unbounded there
	return w.f.Write(p)
}

func (w boundedWriter) Close() error { return w.f.Close() }

// start starts the server's process and the connection's reader; initialize runs on its own
// goroutine and closes ready when it is answered (or failed, or the server was shut down).
// The server lives until shutdown.
func start(lang Language, root string, argv []string, confine func(*exec.Cmd) error, writeWait time.Duration) (*client, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	cmd.Stderr = io.Discard
	if confine != nil {
		if err := confine(cmd); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	stdin, in, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdin
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, errors.Join(err, stdin.Close(), in.Close())
	}
	err = cmd.Start()
	if cerr := stdin.Close(); cerr != nil && err == nil { // the server holds its own copy
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: starting %s: %w", ErrUnavailable, argv[0], errors.Join(err, in.Close()))
	}
	ctx, end := context.WithCancel(context.Background())
	c := &client{lang: lang, root: root, cmd: cmd, end: end, ready: make(chan struct{}), stopped: make(chan struct{}),
		docs: map[uri.URI]*doc{}, published: map[uri.URI]publication{}, changed: make(chan struct{}), lastUse: time.Now()}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{out, boundedWriter{in, writeWait}}))
	c.conn.Go(ctx, c.handle)
	go func() {
		<-c.conn.Done()
		c.setGone("the " + lang.Name + " language server stopped")
		close(c.stopped)
		_ = cmd.Process.Kill() // it may have exited already: the error says nothing new
		_ = cmd.Wait()         // the exit status of a server we stop or that crashed is not used
	}()
	go c.initialize(ctx)
	return c, nil
}

// initialize runs the protocol's handshake.
func (c *client) initialize(ctx context.Context) {
	defer close(c.ready)
	folder := protocol.WorkspaceFolder{URI: string(uri.File(c.root)), Name: c.root}
	params := &protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		ClientInfo: &protocol.ClientInfo{Name: "cairn"},
		RootURI:    uri.File(c.root), //nolint:staticcheck // deprecated for workspaceFolders, which are sent too; older servers read only this
		Capabilities: protocol.ClientCapabilities{
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
				Definition:         &protocol.DefinitionTextDocumentClientCapabilities{LinkSupport: false},
				References:         &protocol.ReferencesTextDocumentClientCapabilities{},
			},
			Workspace: &protocol.WorkspaceClientCapabilities{
				WorkspaceFolders:      true,
				Configuration:         true,
				DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesWorkspaceClientCapabilities{},
			},
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
		},
		WorkspaceFolders: []protocol.WorkspaceFolder{folder},
	}
	var res protocol.InitializeResult
	if _, err := c.conn.Call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		c.err = fmt.Errorf("%w: the %s language server did not start: %w", ErrUnavailable, c.lang.Name, err)
		return
	}
	if err := c.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		c.err = fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
}

// handle answers what the server sends. It runs on the connection's reader and never blocks.
func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			c.mu.Lock()
			c.published[p.URI] = publication{version: int32(p.Version), items: p.Diagnostics, seq: nextSeq()}
			c.notifyLocked()
			c.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	case protocol.MethodProgress:
		var p struct {
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			c.mu.Lock()
			switch p.Value.Kind {
			case "begin":
				c.progress++
			case "end":
				c.progress = max(0, c.progress-1)
			}
			c.notifyLocked()
			c.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, err)
		}
		return reply(ctx, make([]any, len(p.Items)), nil)
	case protocol.MethodWorkspaceWorkspaceFolders:
		return reply(ctx, []protocol.WorkspaceFolder{{URI: string(uri.File(c.root)), Name: c.root}}, nil)
	case protocol.MethodWorkDoneProgressCreate, protocol.MethodClientRegisterCapability, protocol.MethodClientUnregisterCapability,
		protocol.MethodWindowShowMessageRequest, protocol.MethodWindowShowMessage, protocol.MethodWindowLogMessage,
		protocol.MethodTelemetryEvent:
		return reply(ctx, nil, nil)
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
}

// notifyLocked wakes whoever waits for a change of the client's state.
func (c *client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *client) setGone(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone == "" {
		c.gone = why
	}
	c.notifyLocked()
}

// usable waits, within ctx, for the server to have started, and says why it cannot answer.
// A server that did not start within the first wait is given up: later calls fail at once.
func (c *client) usable(ctx context.Context) error {
	c.mu.Lock()
	gone := c.gone
	c.mu.Unlock()
	if gone != "" {
		return fmt.Errorf("%w: %s", ErrUnavailable, gone)
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		c.setGone("the " + c.lang.Name + " language server did not start in time")
		return fmt.Errorf("%w: the %s language server did not start in time", ErrUnavailable, c.lang.Name)
	}
	if c.err != nil {
		return c.err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastUse = time.Now()
	if c.gone != "" {
		return fmt.Errorf("%w: %s", ErrUnavailable, c.gone)
	}
	return nil
}

// sync gives the server abs's text on disk: didOpen the first time, didChange when it
// differs from what it was given. It returns the document's URI and the order of the last
// time its text was sent.
func (c *client) sync(ctx context.Context, abs, languageID string) (u uri.URI, sent uint64, opened bool, err error) {
	b, err := os.ReadFile(abs)
	u = uri.File(abs)
	if errors.Is(err, os.ErrNotExist) {
		return u, 0, false, c.close(ctx, u)
	}
	if err != nil {
		return u, 0, false, err
	}
	text := string(b)
	c.mu.Lock()
	d, open := c.docs[u]
	switch {
	case !open:
		d = &doc{version: 1, text: text, sent: nextSeq()}
		c.docs[u] = d
		c.mu.Unlock()
		return u, d.sent, true, c.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(languageID), Version: 1, Text: text}})
	case d.text == text:
		sent := d.sent
		c.mu.Unlock()
		return u, sent, false, nil
	}
	old := d.text
	d.version++
	d.text = text
	d.sent = nextSeq()
	version := d.version
	sent = d.sent
	c.mu.Unlock()
	return u, sent, false, c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		// The whole text replaces the whole old one. go.lsp.dev's change event always has a
		// range (it cannot be left out to mean "everything"), so it names the old text's.
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: protocol.Range{End: endOf(old)}, Text: text}},
	})
}

// close tells the server a document is gone from the disk.
func (c *client) close(ctx context.Context, u uri.URI) error {
	c.mu.Lock()
	_, open := c.docs[u]
	delete(c.docs, u)
	delete(c.published, u)
	c.mu.Unlock()
	if !open {
		return nil
	}
	return c.conn.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}})
}

// settle is how long a document's diagnostics must stay unchanged, with no work in progress,
// to count as settled.
const settle = 150 * time.Millisecond

// diagnostics waits, within ctx, for the server's diagnostics of u after the text sent at
// sent, until they settle. When the server publishes nothing new before ctx ends (servers
// skip a publication that would repeat the last one), the last one stands; with none at all it
// is an error.
func (c *client) diagnostics(ctx context.Context, u uri.URI, sent uint64) ([]protocol.Diagnostic, error) {
	var quiet <-chan time.Time
	var lastSeq uint64
	for {
		c.mu.Lock()
		p, ok := c.published[u]
		d := c.docs[u]
		fresh := ok && p.seq > sent && (p.version == 0 || d == nil || p.version >= d.version)
		busy := c.progress > 0
		gone := c.gone
		changed := c.changed
		c.mu.Unlock()
		if gone != "" {
			return nil, fmt.Errorf("%w: %s", ErrUnavailable, gone)
		}
		if fresh && p.seq != lastSeq {
			lastSeq = p.seq
			quiet = time.After(settle)
		}
		select {
		case <-changed:
			continue
		case <-quiet:
			if !busy {
				return p.items, nil
			}
			quiet = time.After(settle)
		case <-ctx.Done():
			if ok {
				return p.items, nil
			}
			return nil, fmt.Errorf("%w: the %s language server reported nothing in time", ErrUnavailable, c.lang.Name)
		}
	}
}

// shutdown asks the server to exit, and kills it when it does not within wait.
func (c *client) shutdown(ctx context.Context, wait time.Duration) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	if c.usableNow() {
		if _, err := c.conn.Call(ctx, protocol.MethodShutdown, nil, nil); err == nil {
			_ = c.conn.Notify(ctx, protocol.MethodExit, nil) // it exits, or is killed below
		}
	}
	select {
	case <-c.stopped:
	case <-ctx.Done():
	}
	_ = c.conn.Close() // ends the reader, which kills the process
	<-c.stopped
	c.end()
}

// usableNow reports whether the server started and is still there, without waiting.
func (c *client) usableNow() bool {
	select {
	case <-c.ready:
	default:
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil && c.gone == ""
}

// goneReason says why the server can no longer answer ("" while it can, or may once started).
func (c *client) goneReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// idleSince is when the server was last used.
func (c *client) idleSince() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastUse
}

// endOf is the position of text's end, its column counted in UTF-16 code units as the
// protocol's positions are.
func endOf(text string) protocol.Position {
	line := strings.Count(text, "\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	return protocol.Position{Line: uint32(line), Character: uint32(len(utf16.Encode([]rune(last))))}
}
