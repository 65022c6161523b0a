package rpc

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/tools/browser"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// TestTestBrowserConnection: the answer says whether the named browser can be driven; a
// failure is data for the settings view, not an RPC error.
func TestTestBrowserConnection(t *testing.T) {
	h, err := config.NewHolder("")
	if err != nil {
		t.Fatal(err)
	}
	s := New(&Backend{Settings: h})
	cases := []struct {
		name    string
		req     *cairnv1.TestBrowserConnectionRequest
		ok      bool
		errPart string
		local   bool // needs a browser on this machine
	}{
		{name: "missing executable", req: &cairnv1.TestBrowserConnectionRequest{BrowserPath: "/nonexistent/chrome"}, errPart: "no Chromium"},
		{name: "nothing listens at the remote address", req: &cairnv1.TestBrowserConnectionRequest{RemoteUrl: "ws://127.0.0.1:1/devtools/browser/x"}, errPart: "browser"},
		{name: "the machine's browser", req: &cairnv1.TestBrowserConnectionRequest{}, ok: true, local: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := browser.Find(""); tc.local && err != nil {
				t.Skipf("no browser: %v", err)
			}
			resp, err := s.TestBrowserConnection(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetOk() != tc.ok || !strings.Contains(resp.GetError(), tc.errPart) {
				t.Errorf("ok=%v error=%q; want ok=%v and an error containing %q", resp.GetOk(), resp.GetError(), tc.ok, tc.errPart)
			}
		})
	}
}
