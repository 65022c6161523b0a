package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/cairnhq/cairn/core/tools"
)

// The browser stays on the web (README "Security"): every request of the page goes through
// the Fetch domain, which fails one to a scheme other than http(s), to a link-local address,
// or to a loopback or private address the session's launch was not approved for. Loads that
// do not reach the network (file:, chrome:, view-source:, …) are not seen there, so after
// every action, before the screenshot or the console is read, each frame's URL is checked
// too, and a page that left the web is replaced by about:blank.

// ErrBlocked is a URL the browser does not open: launch refuses it.
var ErrBlocked = errors.New("browser: the browser only opens http and https pages")

// Block is one request or page the session refused.
type Block struct {
	URL string
	// Err is why: ErrBlocked (scheme), tools.ErrLinkLocal or tools.ErrLocalAddr.
	Err error
}

// hostCheckTimeout bounds the name lookup of one checked request.
const hostCheckTimeout = 3 * time.Second

// pageAllowed reports whether a page may show u: http(s), or about:blank.
func pageAllowed(u string) bool {
	if u == "about:blank" || strings.HasPrefix(u, "about:blank#") || strings.HasPrefix(u, "about:blank?") {
		return true
	}
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	s := strings.ToLower(p.Scheme)
	return (s == "http" || s == "https") && p.Host != ""
}

// frameAllowed is pageAllowed for a frame, which may also be about:srcdoc, a data: or blob:
// document (opaque, it reads nothing of the machine), or Chromium's own error page.
func frameAllowed(u string, top bool) bool {
	if pageAllowed(u) || strings.HasPrefix(u, "chrome-error://chromewebdata") {
		return true
	}
	return !top && (u == "about:srcdoc" || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:http"))
}

// checkRequest says why the session refuses a request to u (nil: it may go).
func (s *Session) checkRequest(ctx context.Context, u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return ErrBlocked
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https", "ws", "wss":
	default:
		return ErrBlocked
	}
	ctx, cancel := context.WithTimeout(ctx, hostCheckTimeout)
	defer cancel()
	switch tools.ClassifyHost(ctx, p.Hostname(), s.opts.Lookup) {
	case tools.AddrLinkLocal:
		return tools.ErrLinkLocal
	case tools.AddrLocal:
		if !s.allowLocal.Load() {
			return tools.ErrLocalAddr
		}
	}
	return nil
}

// enableGuard pauses every request of the tab for checkRequest.
func enableGuard(tab context.Context) error {
	_, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{
			{URLPattern: "*", RequestStage: fetch.RequestStageRequest},
			// A page's redirect to file: or another scheme is never requested, so the
			// redirect response itself is checked.
			{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageResponse},
		}})
	return err
}

// screen answers one paused request. It runs in a goroutine of its own: the listener may not
// send commands.
func (s *Session) screen(tab context.Context, e *fetch.EventRequestPaused) {
	u := e.Request.URL + e.Request.URLFragment
	var err error
	if e.ResponseStatusCode != 0 || e.ResponseErrorReason != "" {
		u, err = redirectTarget(e)
	} else {
		err = s.checkRequest(tab, u)
	}
	if err != nil {
		s.addBlock(Block{URL: u, Err: err})
		_, ferr := chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID,
			ErrorReason: network.ErrorReasonBlockedByClient})
		if ferr != nil && tab.Err() == nil {
			slog.Warn("browser: failing a blocked request", "url", u, "err", ferr)
		}
		return
	}
	if _, err := chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID}); err != nil && tab.Err() == nil {
		slog.Warn("browser: continuing a request", "url", u, "err", err)
	}
}

// redirectTarget checks a document response paused at the response stage: a redirect to a
// URL that is not http(s) returns that URL and ErrBlocked. Hosts are checked when the
// redirected request is paused in its turn.
func redirectTarget(e *fetch.EventRequestPaused) (string, error) {
	if e.ResponseStatusCode < 300 || e.ResponseStatusCode > 399 {
		return e.Request.URL, nil
	}
	for _, h := range e.ResponseHeaders {
		if !strings.EqualFold(h.Name, "Location") {
			continue
		}
		base, err := url.Parse(e.Request.URL)
		if err != nil {
			return h.Value, ErrBlocked
		}
		to, err := base.Parse(h.Value)
		if err != nil {
			return h.Value, ErrBlocked
		}
		if s := strings.ToLower(to.Scheme); s != "http" && s != "https" {
			return to.String(), ErrBlocked
		}
	}
	return e.Request.URL, nil
}

// navigationRequested records a navigation the page asked for (a link, a script, a meta
// refresh) to something other than the web. Chromium refuses most of them itself, and
// checkFrames catches the rest; recording it tells the model why the page did not change.
func (s *Session) navigationRequested(e *page.EventFrameRequestedNavigation) {
	if !frameAllowed(e.URL, false) {
		s.addBlock(Block{URL: e.URL, Err: ErrBlocked})
	}
}

// localResourceRefused is how Chromium logs a web page's attempt to load a file: URL, which
// it refuses by itself (a meta refresh, a link, an iframe).
const localResourceRefused = "Not allowed to load local resource: "

// logEntry records as a block a load Chromium refused itself for leaving the web.
func (s *Session) logEntry(text string) {
	if u, ok := strings.CutPrefix(text, localResourceRefused); ok {
		s.addBlock(Block{URL: strings.TrimSpace(u), Err: ErrBlocked})
	}
}

func (s *Session) addBlock(b Block) {
	s.ev.Lock()
	defer s.ev.Unlock()
	for _, old := range s.blocked {
		if old.URL == b.URL {
			return
		}
	}
	if len(s.blocked) < maxConsoleLines {
		s.blocked = append(s.blocked, b)
	}
}

func (s *Session) takeBlocked() []Block {
	s.ev.Lock()
	defer s.ev.Unlock()
	out := s.blocked
	s.blocked = nil
	return out
}

// checkFrames looks at every frame of the page; when one shows something other than the web
// it records the block and replaces the page by about:blank, so nothing of it is captured.
func (s *Session) checkFrames(c context.Context) error {
	res, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("browser: reading the frames: %w", err)
	}
	bad := badFrame(res.FrameTree, true)
	if bad == "" {
		return nil
	}
	s.addBlock(Block{URL: bad, Err: ErrBlocked})
	if _, err := chromedp.Call(c, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
		return fmt.Errorf("browser: leaving %s: %w", bad, err)
	}
	return nil
}

// badFrame returns the URL of the first frame under t that may not be shown ("" if none).
func badFrame(t *page.FrameTree, top bool) string {
	if t == nil || t.Frame == nil {
		return ""
	}
	if u := t.Frame.URL + t.Frame.URLFragment; !frameAllowed(u, top) {
		return u
	}
	for _, child := range t.ChildFrames {
		if u := badFrame(child, false); u != "" {
			return u
		}
	}
	return ""
}

// BlockedError is a launch whose page the session refused to load (its own request, or a
// redirect of it, was blocked).
type BlockedError struct{ Blocks []Block }

func (e *BlockedError) Error() string {
	return fmt.Sprintf("browser: blocked %s: %v", e.Blocks[0].URL, e.Blocks[0].Err)
}
