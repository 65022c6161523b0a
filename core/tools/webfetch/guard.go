package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"

	"github.com/cairnhq/cairn/core/tools"
)

// maxRedirects is how many redirects one fetch follows.
const maxRedirects = 10

// ErrRedirectScheme is a redirect to something other than an http or https URL.
var ErrRedirectScheme = errors.New("webfetch: redirected to a URL that is not http or https")

// client returns the HTTP client of one fetch: f.Client, or one of its own whose every
// connection is checked against the address rules of README "Security" (link-local never,
// loopback and private only when f.AllowLocal), and which checks every redirect the same
// way and follows it only to http(s).
func (f Fetcher) client() *http.Client {
	var c http.Client
	if f.Client != nil {
		c = *f.Client
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if f.TLS != nil {
			tr.TLSClientConfig = f.TLS.Clone()
		}
		// A proxy the user set (HTTP_PROXY, HTTPS_PROXY) is dialled as it is: the page's own
		// address is then checked by name, on the first URL and on every redirect, before the
		// request leaves. Without a proxy every connection is checked on the address dialled.
		proxies := &sync.Map{}
		tr.Proxy = func(req *http.Request) (*url.URL, error) {
			pick := f.Proxy
			if pick == nil {
				pick = http.ProxyFromEnvironment
			}
			u, err := pick(req)
			if u != nil {
				proxies.Store(canonicalAddr(u), true)
			}
			return u, err
		}
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if _, ok := proxies.Load(addr); ok {
				dial := f.Dial
				if dial == nil {
					dial = (&net.Dialer{}).DialContext
				}
				return dial(ctx, network, addr)
			}
			return f.dial(ctx, network, addr)
		}
		c.Transport = tr
	}
	c.CheckRedirect = f.checkRedirect
	return &c
}

// checkRedirect refuses a redirect to a non-http(s) URL, to a link-local host, or to a
// local one the fetch was not approved for.
func (f Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("webfetch: stopped after %d redirects", maxRedirects)
	}
	kind, err := tools.CheckURL(req.Context(), req.URL, f.Lookup)
	switch {
	case errors.Is(err, tools.ErrWebScheme):
		return fmt.Errorf("%w: %s", ErrRedirectScheme, req.URL.Redacted())
	case err != nil:
		return err
	case kind == tools.AddrLocal && !f.AllowLocal:
		return fmt.Errorf("%w: %s", tools.ErrLocalAddr, req.URL.Host)
	}
	return nil
}

// dial resolves addr itself, checks every address it resolves to, and connects to the
// checked address, so a name that resolves differently on a second lookup cannot slip past.
func (f Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, perr := netip.ParseAddr(host); perr == nil {
		ips = []netip.Addr{ip}
	} else {
		lookup := f.Lookup
		if lookup == nil {
			lookup = tools.DefaultLookup
		}
		if ips, err = lookup(ctx, host); err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("webfetch: %s has no address", host)
		}
	}
	for _, ip := range ips {
		switch tools.ClassifyIP(ip) {
		case tools.AddrLinkLocal:
			return nil, fmt.Errorf("%w: %s resolves to %s", tools.ErrLinkLocal, host, ip)
		case tools.AddrLocal:
			if !f.AllowLocal {
				return nil, fmt.Errorf("%w: %s resolves to %s", tools.ErrLocalAddr, host, ip)
			}
		}
	}
	dial := f.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	var errs []error
	for _, ip := range ips {
		conn, err := dial(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// canonicalAddr is the host:port a proxy URL is dialled at, as the transport dials it.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
