package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// publicIP stands for a public server in the tests: the test dialer connects it to a local
// test server, while every check sees the public address.
const publicIP = "203.0.113.7"

// guarded returns a fetcher whose resolver maps public.test to publicIP and metadata.test to
// 169.254.169.254, and whose dialer connects publicIP to pub (a loopback test server).
func guarded(t *testing.T, pub *httptest.Server) Fetcher {
	t.Helper()
	pubAddr := strings.TrimPrefix(pub.URL, "http://")
	var d net.Dialer
	return Fetcher{
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "public.test":
				return []netip.Addr{netip.MustParseAddr(publicIP)}, nil
			case "metadata.test":
				return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
			}
			return nil, errors.New("no such host")
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			if host == publicIP {
				addr = pubAddr
			}
			return d.DialContext(ctx, network, addr)
		},
	}
}

func TestFetchAddressRules(t *testing.T) {
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("local secret"))
	}))
	t.Cleanup(local.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("public hello"))
	})
	mux.Handle("/to-local", http.RedirectHandler(local.URL+"/x", http.StatusFound))
	mux.Handle("/to-localhost", http.RedirectHandler(strings.Replace(local.URL, "127.0.0.1", "localhost", 1), http.StatusFound))
	mux.Handle("/to-metadata", http.RedirectHandler("http://169.254.169.254/latest/meta-data/", http.StatusFound))
	mux.Handle("/to-metadata-name", http.RedirectHandler("http://metadata.test/", http.StatusFound))
	mux.Handle("/to-file", http.RedirectHandler("file:///etc/passwd", http.StatusFound))
	pub := httptest.NewServer(mux)
	t.Cleanup(pub.Close)
	port := pub.URL[strings.LastIndex(pub.URL, ":")+1:]
	base := "http://public.test:" + port

	cases := []struct {
		name       string
		url        string
		allowLocal bool
		want       string
		isErr      bool
	}{
		{"public page", base + "/hello", false, "public hello", false},
		{"file URL", "file:///etc/passwd", false, "only http and https", true},
		{"metadata address", "http://169.254.169.254/latest/meta-data/", true, "link-local", true},
		{"name resolving to metadata", "http://metadata.test/", true, "link-local", true},
		{"loopback not approved", local.URL, false, "did not approve", true},
		{"302 public to loopback", base + "/to-local", false, "did not approve", true},
		{"302 public to localhost", base + "/to-localhost", false, "did not approve", true},
		{"302 public to loopback, local approved", base + "/to-local", true, "local secret", false},
		{"302 public to metadata", base + "/to-metadata", true, "link-local", true},
		{"302 public to a name resolving to metadata", base + "/to-metadata-name", true, "link-local", true},
		{"302 public to file", base + "/to-file", true, "not http or https", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := guarded(t, pub)
			f.AllowLocal = tc.allowLocal
			text, bad, err := Read(context.Background(), f, nil, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			got := text
			if tc.isErr {
				got = bad
			}
			if (bad != "") != tc.isErr || !strings.Contains(got, tc.want) {
				t.Errorf("Read(%s) = %q, bad %q; want %q (error %v)", tc.url, text, bad, tc.want, tc.isErr)
			}
		})
	}
}

// TestDialChecksAddress checks the dial hook on its own: it refuses an address the URL check
// could not see (a name that resolves to link-local or loopback only when dialled).
func TestDialChecksAddress(t *testing.T) {
	f := Fetcher{Lookup: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}}
	if _, err := f.dial(context.Background(), "tcp", "rebind.test:80"); !errors.Is(err, tools.ErrLocalAddr) {
		t.Errorf("dial of a name resolving to loopback: %v, want ErrLocalAddr", err)
	}
	if _, err := f.dial(context.Background(), "tcp", "[fe80::1]:80"); !errors.Is(err, tools.ErrLinkLocal) {
		t.Errorf("dial of fe80::1: %v, want ErrLinkLocal", err)
	}
	f.AllowLocal = true
	if _, err := f.dial(context.Background(), "tcp", "169.254.169.254:80"); !errors.Is(err, tools.ErrLinkLocal) {
		t.Errorf("dial of 169.254.169.254 with local allowed: %v, want ErrLinkLocal", err)
	}
}

// TestToolLocalCategory checks that web_fetch asks for a loopback page under the local
// network category, for a public one under the browser category, and never asks for a
// link-local one.
func TestToolLocalCategory(t *testing.T) {
	srv := site(t)
	u, _ := url.Parse(srv.URL)
	cases := []struct {
		url     string
		want    tools.Category
		asked   bool
		reached string
	}{
		{srv.URL + "/notes.txt", tools.CategoryLocal, true, "plain notes"},
		{"http://localhost:" + u.Port() + "/notes.txt", tools.CategoryLocal, true, "plain notes"},
		{"http://169.254.169.254/latest/meta-data/", "", false, "link-local"},
	}
	for _, tc := range cases {
		ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
		res, err := New(Fetcher{}, nil).Run(context.Background(), &tools.Env{UI: ui},
			tools.Call{Name: Name, Params: map[string]string{"url": tc.url}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, tc.reached) {
			t.Errorf("%s: result %q, want %q", tc.url, res.Text, tc.reached)
		}
		if (len(ui.Approvals) == 1) != tc.asked || tc.asked && ui.Approvals[0].Category != tc.want {
			t.Errorf("%s: approvals %+v, want category %q asked=%v", tc.url, ui.Approvals, tc.want, tc.asked)
		}
	}
}

// TestFetchThroughProxy checks that a proxy the user set is used although it is on loopback,
// while the page behind it is still checked by name: a public page is fetched through the
// proxy, a name that resolves to a link-local or loopback address is refused before any
// request leaves.
func TestFetchThroughProxy(t *testing.T) {
	var proxied []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied = append(proxied, r.URL.String()) // a forward proxy gets the absolute URL
		w.Header().Set("Content-Type", "text/plain")
		if _, err := fmt.Fprint(w, "via proxy"); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(proxy.Close)
	pu, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	addrs := map[string]string{"public.test": "93.184.216.34", "meta.test": "169.254.169.254", "home.test": "127.0.0.1"}
	f := Fetcher{
		Proxy: func(*http.Request) (*url.URL, error) { return pu, nil },
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
			a, ok := addrs[host]
			if !ok {
				return nil, fmt.Errorf("no such host %s", host)
			}
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		},
	}
	page, err := f.Fetch(context.Background(), "http://public.test/a")
	if err != nil || string(page.Body) != "via proxy" {
		t.Fatalf("public page through the proxy: %q, %v", page.Body, err)
	}
	if len(proxied) != 1 || proxied[0] != "http://public.test/a" {
		t.Fatalf("proxy saw %v", proxied)
	}
	if _, err := f.Fetch(context.Background(), "http://meta.test/latest"); !errors.Is(err, tools.ErrLinkLocal) {
		t.Errorf("link-local name through the proxy: %v, want ErrLinkLocal", err)
	}
	if _, err := f.Fetch(context.Background(), "http://home.test/"); !errors.Is(err, tools.ErrLocalAddr) {
		t.Errorf("loopback name through the proxy: %v, want ErrLocalAddr", err)
	}
	if len(proxied) != 1 {
		t.Errorf("refused pages reached the proxy: %v", proxied)
	}
}
