package tools

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

func TestClassifyHost(t *testing.T) {
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "intranet.test":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}, nil
		case "metadata.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		case "public.test":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return nil, errors.New("no such host")
	}
	cases := map[string]AddrKind{
		"127.0.0.1": AddrLocal, "127.9.9.9": AddrLocal, "[::1]": AddrLocal, "localhost": AddrLocal,
		"app.localhost": AddrLocal, "10.0.0.1": AddrLocal, "172.16.5.4": AddrLocal, "172.32.0.1": AddrPublic,
		"192.168.1.1": AddrLocal, "fd00::1": AddrLocal, "0.0.0.0": AddrLocal, "::ffff:127.0.0.1": AddrLocal,
		"169.254.169.254": AddrLinkLocal, "fe80::1": AddrLinkLocal, "::ffff:169.254.169.254": AddrLinkLocal,
		"8.8.8.8": AddrPublic, "intranet.test": AddrLocal, "metadata.test": AddrLinkLocal,
		"public.test": AddrPublic, "unknown.test": AddrPublic,
	}
	for host, want := range cases {
		if got := ClassifyHost(context.Background(), host, lookup); got != want {
			t.Errorf("ClassifyHost(%q) = %d, want %d", host, got, want)
		}
	}
}

func TestCheckWebURL(t *testing.T) {
	ctx := context.Background()
	for _, raw := range []string{"file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi", "chrome://version", "view-source:http://x.test/", "ftp://x.test/", "http:///nohost"} {
		if _, err := CheckWebURL(ctx, raw, nil); !errors.Is(err, ErrWebScheme) {
			t.Errorf("CheckWebURL(%q) = %v, want ErrWebScheme", raw, err)
		}
	}
	if _, err := CheckWebURL(ctx, "http://169.254.169.254/latest/meta-data/", nil); !errors.Is(err, ErrLinkLocal) {
		t.Errorf("metadata URL: %v, want ErrLinkLocal", err)
	}
	if k, err := CheckWebURL(ctx, "HTTP://127.0.0.1:8080/x", nil); err != nil || k != AddrLocal {
		t.Errorf("loopback URL: %d, %v", k, err)
	}
}
