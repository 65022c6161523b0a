package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// web_fetch and browser_action ask for a page on this machine or the local network (loopback
// and private addresses) under CategoryLocal, with its own auto-approve setting, because a
// page there is not the public web (README "Security").

// AddrKind is what an address of a web request reaches.
type AddrKind int

// Kinds of address, from least to most guarded.
const (
	// AddrPublic is any other address.
	AddrPublic AddrKind = iota
	// AddrLocal is loopback (127/8, ::1), private (10/8, 172.16/12, 192.168/16, fc00::/7) or
	// unspecified (0.0.0.0, ::): asked under CategoryLocal.
	AddrLocal
	// AddrLinkLocal is 169.254/16 or fe80::/10, where cloud metadata services answer: never
	// fetched or opened.
	AddrLinkLocal
)

// ErrLinkLocal is a request to a link-local address; ErrLocalAddr one to a local address the
// caller did not allow; ErrWebScheme a URL (or redirect) that is not http or https.
var (
	ErrLinkLocal = errors.New("link-local addresses (such as cloud metadata services) are never reached")
	ErrLocalAddr = errors.New("the address is on this machine or the local network, which was not approved")
	ErrWebScheme = errors.New("only http and https pages can be opened")
)

// ClassifyIP says what ip reaches.
func ClassifyIP(ip netip.Addr) AddrKind {
	ip = ip.Unmap()
	switch {
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return AddrLinkLocal
	case ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified():
		return AddrLocal
	}
	return AddrPublic
}

// LookupFunc resolves a host name to its addresses.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// DefaultLookup resolves with the system resolver.
func DefaultLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// ClassifyHost says what host (a name or an IP literal, without port) reaches: the most
// guarded kind among its addresses. localhost and *.localhost are local without a lookup. A
// name that does not resolve counts as public; whoever dials it must check the address again.
func ClassifyHost(ctx context.Context, host string, lookup LookupFunc) AddrKind {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return AddrLocal
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ClassifyIP(ip)
	}
	if lookup == nil {
		lookup = DefaultLookup
	}
	ips, err := lookup(ctx, host)
	if err != nil {
		return AddrPublic
	}
	kind := AddrPublic
	for _, ip := range ips {
		kind = max(kind, ClassifyIP(ip))
	}
	return kind
}

// CheckWebURL checks that raw is an http(s) URL and says what its host reaches. A non-http(s)
// URL returns ErrWebScheme; a link-local host ErrLinkLocal.
func CheckWebURL(ctx context.Context, raw string, lookup LookupFunc) (AddrKind, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return AddrPublic, fmt.Errorf("%w: %s", ErrWebScheme, raw)
	}
	return CheckURL(ctx, u, lookup)
}

// CheckURL is CheckWebURL for a parsed URL.
func CheckURL(ctx context.Context, u *url.URL, lookup LookupFunc) (AddrKind, error) {
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Hostname() == "" {
		return AddrPublic, fmt.Errorf("%w: %s", ErrWebScheme, u.Redacted())
	}
	kind := ClassifyHost(ctx, u.Hostname(), lookup)
	if kind == AddrLinkLocal {
		return kind, fmt.Errorf("%w: %s", ErrLinkLocal, u.Host)
	}
	return kind, nil
}
