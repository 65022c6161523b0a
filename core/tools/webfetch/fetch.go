// Package webfetch downloads a web page and turns it into text for the model: the web_fetch
// tool, and the fetcher behind @url mentions. HTML becomes markdown; plain text stays as is;
// other content is refused with a clear error. A page whose HTML holds no text (it is built by
// JavaScript) can be rendered in a headless browser instead, through a Renderer. The markdown
// comes from cairn-helper (core/helper), which the daemon starts when a page is first converted.
package webfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/tools"
)

// Defaults of a Fetcher.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultMaxBytes = 4 << 20
)

// Renderer loads a URL in a browser and returns the HTML of the page once its scripts ran.
type Renderer interface {
	Render(ctx context.Context, url string) (html string, err error)
}

// Fetcher fetches pages. The zero value is ready to use.
type Fetcher struct {
	// Client does the requests (nil: a client of the fetcher's own that checks every address it
	// dials). Redirects are checked either way and followed at most 10 times.
	Client *http.Client
	// Timeout bounds one fetch, redirects and body included (0: DefaultTimeout).
	Timeout time.Duration
	// MaxBytes caps the body read; the rest is dropped and Page.Truncated set (0: DefaultMaxBytes).
	MaxBytes int64
	// UserAgent names the client ("" : "Cairn").
	UserAgent string
	// AllowLocal lets the fetch reach loopback and private addresses (the user approved the
	// page under tools.CategoryLocal, or typed it). Link-local addresses are never reached.
	AllowLocal bool
	// Lookup resolves host names (nil: the system resolver). Dial connects to a checked
	// address (nil: a net.Dialer). Both are used only when Client is nil; tests set them.
	Lookup tools.LookupFunc
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy picks the proxy of a request (nil: http.ProxyFromEnvironment, the user's
	// HTTP_PROXY/HTTPS_PROXY/NO_PROXY). Used only when Client is nil.
	Proxy func(*http.Request) (*url.URL, error)
	// TLS is the TLS configuration of its connections (nil: the system's authorities), with
	// the authorities the user added (core/egress). Used only when Client is nil.
	TLS *tls.Config
}

// Page is a fetched response.
type Page struct {
	// URL is where the content came from, after redirects.
	URL       string
	MediaType string
	Body      []byte
	// Truncated is set when the body was longer than the cap.
	Truncated bool
}

// Fetch downloads raw. A scheme other than http(s) returns ErrScheme, a non-2xx answer a
// *StatusError; a link-local address (on any hop) tools.ErrLinkLocal, a local one the fetcher
// may not reach tools.ErrLocalAddr, a redirect off http(s) ErrRedirectScheme; network
// failures are returned as they are (wrapped).
func (f Fetcher) Fetch(ctx context.Context, raw string) (Page, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Page{}, fmt.Errorf("%w: %s", ErrScheme, raw)
	}
	kind, err := tools.CheckURL(ctx, u, f.Lookup)
	if err != nil {
		return Page{}, fmt.Errorf("webfetch: %w", err)
	}
	if kind == tools.AddrLocal && !f.AllowLocal {
		return Page{}, fmt.Errorf("webfetch: %w: %s", tools.ErrLocalAddr, u.Host)
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := f.client()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("webfetch: %w", err)
	}
	agent := f.UserAgent
	if agent == "" {
		agent = "Cairn"
	}
	req.Header.Set("Accept", "text/html, application/xhtml+xml, text/markdown, text/plain;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", agent)
	resp, err := client.Do(req)
	if err != nil {
		return Page{}, fmt.Errorf("webfetch: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // a read-only body: closing cannot lose data
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Page{}, &StatusError{Status: resp.Status}
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Page{}, fmt.Errorf("webfetch: reading the body: %w", err)
	}
	p := Page{URL: resp.Request.URL.String(), Body: body}
	if int64(len(body)) > limit {
		p.Body, p.Truncated = body[:limit], true
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(p.Body)
	}
	p.MediaType, _, err = mime.ParseMediaType(ct)
	if err != nil {
		p.MediaType = "application/octet-stream"
	}
	return p, nil
}

// IsHTML reports whether the page is HTML.
func (p Page) IsHTML() bool {
	return p.MediaType == "text/html" || p.MediaType == "application/xhtml+xml"
}

// Text returns the page for the model: HTML as markdown (links made absolute), plain text and
// markdown as they are. Other media types return a *TypeError; HTMLToMarkdown says how the
// conversion fails.
func (p Page) Text(ctx context.Context) (string, error) {
	switch {
	case p.IsHTML():
		return HTMLToMarkdown(ctx, string(p.Body), p.URL)
	case p.MediaType == "text/plain" || p.MediaType == "text/markdown" || p.MediaType == "text/x-markdown":
		return strings.ToValidUTF8(string(p.Body), "\uFFFD"), nil
	}
	return "", &TypeError{MediaType: p.MediaType}
}

// HTMLToMarkdown converts html to markdown, resolving relative links against base. The
// conversion runs in cairn-helper (core/helper), so ctx ending kills it. HTML the helper
// refuses is an error wrapping a *helper.RefusedError; a helper that cannot run or fails
// otherwise is an error that does not, and ctx ending returns ctx.Err().
func HTMLToMarkdown(ctx context.Context, html, base string) (string, error) {
	out, err := helper.Run(ctx, []byte(html), "html-markdown", base)
	var refused *helper.RefusedError
	switch {
	case errors.As(err, &refused):
		// The helper's reason already starts with "converting HTML".
		return "", fmt.Errorf("webfetch: %w", refused)
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", fmt.Errorf("webfetch: converting HTML: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// NeedsScript reports whether an HTML page shows no text without running its scripts (an
// app shell such as `<div id="root"></div>`), so a browser should render it.
func NeedsScript(p Page, markdown string) bool {
	return p.IsHTML() && strings.TrimSpace(markdown) == ""
}

// Cut shortens text to at most limit characters and reports whether it did.
func Cut(text string, limit int) (string, bool) {
	if utf8.RuneCountInString(text) <= limit {
		return text, false
	}
	return string([]rune(text)[:limit]), true
}
