package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/fetch"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/cairnhq/cairn/core/tools"
)

// Defaults of a session.
const (
	DefaultWidth  = 900
	DefaultHeight = 600
	// DefaultSettle is the longest wait for a page to settle after an action.
	DefaultSettle = 3 * time.Second
	// DefaultLoad is the longest wait for a launched page's load event.
	DefaultLoad = 10 * time.Second
	// DefaultQuiet is how long the network must be idle for a page to count as settled.
	DefaultQuiet = 300 * time.Millisecond
	// closeTimeout bounds a graceful close; after it the browser is killed.
	closeTimeout = 5 * time.Second
	// maxConsoleLines caps the console lines kept between two actions.
	maxConsoleLines = 200
	// maxConsoleLine caps one console line.
	maxConsoleLine = 1000
)

// Options configure a session. The zero value runs the machine's Chromium at 900×600.
type Options struct {
	// ExecPath is the browser to run; "" looks for Chromium, Chrome or Edge (Find).
	ExecPath string
	// RemoteURL is the DevTools address of a browser that already runs (ws://… or
	// http://host:port); when set nothing is started and Close only closes the tab.
	RemoteURL string
	// Width and Height are the viewport in CSS pixels (0: 900×600).
	Width, Height int
	// Settle, Load and Quiet override DefaultSettle, DefaultLoad and DefaultQuiet.
	Settle, Load, Quiet time.Duration
	// Lookup resolves the host names of the page's requests for the address check (nil: the
	// system resolver); tests set it.
	Lookup tools.LookupFunc
	// ProxyServer and ProxyBypass are Chromium's --proxy-server and --proxy-bypass-list
	// (core/egress: the daemon's HTTPS_PROXY and NO_PROXY); "": none. A remote browser keeps
	// its own.
	ProxyServer, ProxyBypass string
	// ExtraCAs returns the certificates (DER) of the authorities the browser trusts on top of
	// its own (core/egress: SSL_CERT_FILE, SSL_CERT_DIR, NODE_EXTRA_CA_CERTS), read at each
	// start; nil: none. A remote browser keeps its own.
	ExtraCAs func() ([][]byte, error)
}

// errUntrusted is why a started browser does not trust the extra authorities (trustHome).
var errUntrusted = errors.New("the browser cannot trust the extra certificate authorities")

func (o Options) size() (int, int) {
	if o.Width <= 0 || o.Height <= 0 {
		return DefaultWidth, DefaultHeight
	}
	return o.Width, o.Height
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Shot is what an action leaves: the viewport as PNG, the console lines written since the
// previous action, the page's URL and the mouse position ("x,y", "" before any click).
type Shot struct {
	PNG     []byte
	Console []string
	URL     string
	Mouse   string
	// Blocked are the requests and pages refused since the previous action (guard.go).
	Blocked []Block
}

// Session is one task's browser: started by Launch, kept between actions, ended by Close.
// Its methods are safe for concurrent use; actions run one at a time.
type Session struct {
	opts Options

	// act serialises actions and guards the fields up to ev.
	act sync.Mutex
	// tab is chromedp's handle of the open tab. chromedp keeps the browser in a context, so
	// the session holds one: it is a handle for the browser's lifetime, never a caller's
	// request context (each action derives from it a context bound to the caller's).
	tab context.Context //nolint:containedctx // chromedp's handle of a tab is a context
	// stop closes the tab and ends the browser process (nil while closed).
	stop  context.CancelFunc
	mouse string
	// untrusted is why the running browser does not trust the extra authorities (nil: it
	// does, or there are none); a page refused for its certificate says it.
	untrusted error
	// allowLocal is set while the launched page is itself on a loopback or private address
	// (approved under tools.CategoryLocal): only then may the page reach such addresses.
	allowLocal atomic.Bool

	// ev guards what the event listener records; the listener runs on chromedp's reader
	// goroutine and holds it only for an append or a map update.
	ev       sync.Mutex
	console  []string
	dropped  int
	inflight map[network.RequestID]struct{}
	lastNet  time.Time
	blocked  []Block
}

// NewSession returns a closed session.
func NewSession(opts Options) *Session {
	return &Session{opts: opts}
}

// Open reports whether a browser is running for this session.
func (s *Session) Open() bool {
	s.act.Lock()
	defer s.act.Unlock()
	return s.stop != nil
}

// Viewport returns the session's viewport size.
func (s *Session) Viewport() (width, height int) { return s.opts.size() }

// Launch starts the browser (closing one left open) and opens u. It returns once the page
// has loaded and settled, or the load and settle limits passed. A page that cannot be
// reached returns an error wrapping ErrNavigate, one whose load was blocked a *BlockedError;
// the session stays open. A URL that is not http(s) returns ErrBlocked, a link-local one
// tools.ErrLinkLocal, and nothing is started. When u is on a loopback or private address the
// page may reach such addresses; otherwise its requests to them are blocked.
func (s *Session) Launch(ctx context.Context, u string) (Shot, error) {
	kind, err := tools.CheckWebURL(ctx, u, s.opts.Lookup)
	switch {
	case errors.Is(err, tools.ErrWebScheme):
		return Shot{}, fmt.Errorf("%w: %s", ErrBlocked, u)
	case err != nil:
		return Shot{}, err
	}
	s.act.Lock()
	defer s.act.Unlock()
	s.allowLocal.Store(kind == tools.AddrLocal)
	if s.stop != nil {
		if err := s.closeLocked(); err != nil {
			return Shot{}, err
		}
	}
	if err := s.startLocked(ctx); err != nil {
		return Shot{}, err
	}
	s.mouse = ""
	load := orDefault(s.opts.Load, DefaultLoad)
	return s.actLocked(ctx, func(c context.Context) error {
		lc, cancel := context.WithTimeout(c, load)
		defer cancel()
		err := chromedp.Do(lc, chromedp.Navigate(u))
		var le *chromedp.LoadError
		switch {
		case errors.As(err, &le) && strings.Contains(le.ErrorText, "BLOCKED_BY_CLIENT"):
			if blocks := s.takeBlocked(); len(blocks) > 0 {
				return &BlockedError{Blocks: blocks}
			}
			return fmt.Errorf("%w: %s", ErrNavigate, le.ErrorText)
		case errors.As(err, &le) && s.untrusted != nil && strings.Contains(le.ErrorText, "ERR_CERT_"):
			return fmt.Errorf("%w: %s (%w)", ErrNavigate, le.ErrorText, s.untrusted)
		case errors.As(err, &le):
			return fmt.Errorf("%w: %s", ErrNavigate, le.ErrorText)
		case err != nil && lc.Err() != nil && c.Err() == nil:
			return nil // slower than the load limit: show what is there
		}
		return err
	})
}

// Click presses and releases the left button at x,y (CSS pixels of the viewport).
func (s *Session) Click(ctx context.Context, x, y int) (Shot, error) {
	s.act.Lock()
	defer s.act.Unlock()
	if s.stop == nil {
		return Shot{}, ErrNotOpen
	}
	s.mouse = fmt.Sprintf("%d,%d", x, y)
	return s.actLocked(ctx, func(c context.Context) error {
		return chromedp.Do(c, chromedp.MouseClickXY(float64(x), float64(y)))
	})
}

// Type sends text as key presses to the focused element.
func (s *Session) Type(ctx context.Context, text string) (Shot, error) {
	s.act.Lock()
	defer s.act.Unlock()
	if s.stop == nil {
		return Shot{}, ErrNotOpen
	}
	return s.actLocked(ctx, func(c context.Context) error {
		return chromedp.Do(c, chromedp.KeyEvent(text))
	})
}

// Scroll moves the page one viewport height down (or up).
func (s *Session) Scroll(ctx context.Context, down bool) (Shot, error) {
	s.act.Lock()
	defer s.act.Unlock()
	if s.stop == nil {
		return Shot{}, ErrNotOpen
	}
	_, h := s.opts.size()
	if !down {
		h = -h
	}
	return s.actLocked(ctx, func(c context.Context) error {
		return chromedp.Do(c, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("window.scrollBy(0, %d)", h)))
	})
}

// Close ends the browser (a remote browser only loses its tab). Closing a closed session
// does nothing.
func (s *Session) Close() error {
	s.act.Lock()
	defer s.act.Unlock()
	return s.closeLocked()
}

func (s *Session) closeLocked() error {
	if s.stop == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.tab, closeTimeout)
	err := chromedp.Cancel(ctx)
	cancel()
	s.stop() // kills what a graceful close left, and waits for the process
	s.tab, s.stop, s.mouse = nil, nil, ""
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("browser: closing: %w", err)
	}
	return nil
}

// startLocked starts a browser and opens a blank tab of the session's size. A caller whose
// ctx ends while the browser starts gets ctx's error and no browser is left running.
func (s *Session) startLocked(ctx context.Context) error {
	w, h := s.opts.size()
	var (
		alloc       context.Context
		cancelAlloc context.CancelFunc
		home        string // the browser's own home folder, for the extra authorities
	)
	s.untrusted = nil
	if s.opts.RemoteURL != "" {
		alloc, cancelAlloc = remote.NewAllocator(context.WithoutCancel(ctx), s.opts.RemoteURL)
	} else {
		path, err := Find(s.opts.ExecPath)
		if err != nil {
			return err
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.WindowSize(w, h),
			chromedp.Flag("hide-scrollbars", true),
			chromedp.Flag("mute-audio", true),
			// Cross-site frames stay in the page's process, so that the request check of
			// guard.go, which sees the page's target only, sees theirs too.
			chromedp.Flag("disable-site-isolation-trials", true),
			chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,IsolateOrigins,site-per-process"), // the first two are chromedp's defaults
		)
		if s.opts.ProxyServer != "" {
			opts = append(opts, chromedp.ProxyServer(s.opts.ProxyServer))
			if s.opts.ProxyBypass != "" {
				opts = append(opts, chromedp.Flag("proxy-bypass-list", s.opts.ProxyBypass))
			}
		}
		if os.Geteuid() == 0 {
			opts = append(opts, chromedp.NoSandbox) // Chromium refuses its sandbox as root
		}
		if home = s.trustedHome(ctx); home != "" {
			opts = append(opts, chromedp.Env("HOME="+home))
		}
		alloc, cancelAlloc = chromedp.NewExecAllocator(context.WithoutCancel(ctx), opts...)
	}
	tab, cancelTab := chromedp.NewContext(alloc)
	stop := func() {
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		if home != "" {
			if err := os.RemoveAll(home); err != nil {
				slog.Warn("browser: removing its home folder", "dir", home, "err", err)
			}
		}
	}

	s.ev.Lock()
	s.console, s.dropped, s.inflight, s.lastNet, s.blocked = nil, 0, map[network.RequestID]struct{}{}, time.Now(), nil
	s.ev.Unlock()

	started := make(chan error, 1)
	go func() {
		err := chromedp.Do(tab, chromedp.EmulateViewport(int64(w), int64(h)))
		if err == nil {
			err = chromedp.Listen(tab, func(ev any) {
				switch e := ev.(type) {
				case *fetch.EventRequestPaused:
					go s.screen(tab, e)
				case *page.EventFrameRequestedNavigation:
					s.navigationRequested(e)
				case *cdplog.EventEntryAdded:
					if e.Entry != nil {
						s.logEntry(e.Entry.Text)
					}
					s.record(ev)
				default:
					s.record(ev)
				}
			})
		}
		if err == nil {
			err = enableGuard(tab)
		}
		if err == nil && s.opts.RemoteURL == "" {
			_, err = chromedp.CallBrowser(tab, cdpbrowser.SetDownloadBehavior,
				cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDeny})
		}
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			stop()
			return fmt.Errorf("browser: starting: %w", err)
		}
	case <-ctx.Done():
		stop()
		// The start fails too now (its context was cancelled); both are reported.
		return errors.Join(ctx.Err(), <-started)
	}
	s.tab, s.stop = tab, stop
	return nil
}

// trustedHome returns a home folder for the browser to start in whose certificate database
// trusts the extra authorities, "" when there are none or they cannot be given to it; then
// s.untrusted says why, and the start goes on: only pages signed by them are refused.
func (s *Session) trustedHome(ctx context.Context) string {
	if s.opts.ExtraCAs == nil {
		return ""
	}
	certs, err := s.opts.ExtraCAs()
	if err == nil && len(certs) == 0 {
		return ""
	}
	var home string
	if err == nil {
		home, err = trustHome(ctx, certs)
	}
	if err != nil {
		s.untrusted = err
		slog.Warn("browser: pages signed by the extra certificate authorities will be refused", "err", err)
	}
	return home
}

// actLocked runs do bound to ctx, waits for the page to settle and captures the result.
func (s *Session) actLocked(ctx context.Context, do func(c context.Context) error) (Shot, error) {
	c, cancel := context.WithCancel(s.tab)
	defer context.AfterFunc(ctx, cancel)()
	defer cancel()
	if err := do(c); err != nil {
		if ctx.Err() != nil {
			return Shot{}, ctx.Err()
		}
		return Shot{}, err
	}
	s.settle(c)
	if err := s.checkFrames(c); err != nil {
		return Shot{}, s.actionErr(ctx, err)
	}
	png, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	if err != nil {
		return Shot{}, s.actionErr(ctx, fmt.Errorf("browser: screenshot: %w", err))
	}
	u, err := chromedp.Run(c, chromedp.Location())
	if err != nil {
		return Shot{}, s.actionErr(ctx, fmt.Errorf("browser: reading the URL: %w", err))
	}
	return Shot{PNG: png, Console: s.takeConsole(), URL: u, Mouse: s.mouse, Blocked: s.takeBlocked()}, nil
}

func (s *Session) actionErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// settle waits until the document has loaded and the network has been idle for the quiet
// period, or the settle limit passed, whichever comes first.
func (s *Session) settle(c context.Context) {
	deadline := time.Now().Add(orDefault(s.opts.Settle, DefaultSettle))
	quiet := orDefault(s.opts.Quiet, DefaultQuiet)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		pc, cancel := context.WithDeadline(c, deadline)
		state, err := chromedp.Run(pc, chromedp.Evaluate[string]("document.readyState"))
		cancel()
		if err == nil && state == "complete" && s.idleFor() >= quiet {
			return
		}
		if !time.Now().Before(deadline) {
			return
		}
		select {
		case <-c.Done():
			return
		case <-tick.C:
		}
	}
}

// idleFor is how long no request has been in flight (0 while one is).
func (s *Session) idleFor() time.Duration {
	s.ev.Lock()
	defer s.ev.Unlock()
	if len(s.inflight) > 0 {
		return 0
	}
	return time.Since(s.lastNet)
}

func (s *Session) takeConsole() []string {
	s.ev.Lock()
	defer s.ev.Unlock()
	out := s.console
	if s.dropped > 0 {
		out = append(out, fmt.Sprintf("[cairn] %d more console lines were dropped", s.dropped))
	}
	s.console, s.dropped = nil, 0
	return out
}
