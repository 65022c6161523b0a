package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// hostileSite serves pages that try to leave the web for a secret file: a meta refresh, an
// HTTP 302, an iframe, and requests to a link-local and a loopback address. It returns the
// server and the secret's file URL.
func hostileSite(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	secret := filepath.Join(dir, ".env")
	if err := os.WriteFile(secret, []byte("API_KEY=TOPSECRET-4242"), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(secret)
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = fmt.Fprintf(w, "<html><head>%s</head><body><p>start page</p></body></html>", body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/meta.html", html(`<meta http-equiv="refresh" content="0;url=`+fileURL+`">`))
	mux.HandleFunc("/frame.html", html(`</head><body><iframe src="`+fileURL+`"></iframe>`))
	mux.Handle("/302", http.RedirectHandler(fileURL, http.StatusFound))
	mux.HandleFunc("/metadata.html", html(`<img src="http://169.254.169.254/latest/meta-data/">`))
	mux.HandleFunc("/link.html", html(`</head><body><a href="/other.html" style="display:block;width:100%;height:500px">next</a>`))
	mux.HandleFunc("/other.html", html(""))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, fileURL
}

func blockedURL(blocks []Block, u string, want error) bool {
	for _, b := range blocks {
		if b.URL == u && errors.Is(b.Err, want) {
			return true
		}
	}
	return false
}

// TestGuardKeepsToTheWeb launches loopback pages that try to show a file (README,
// "Security"): none of them shows it, and each attempt is reported as a block.
func TestGuardKeepsToTheWeb(t *testing.T) {
	needBrowser(t)
	isolate(t)
	srv, fileURL := hostileSite(t)
	s := NewSession(Options{Settle: 2 * time.Second})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	noSecret := func(name string) {
		t.Helper()
		html, err := s.HTML(ctx)
		if err != nil && !strings.Contains(err.Error(), "outerHTML") {
			t.Fatalf("%s: %v", name, err) // an error page has no document: nothing to show
		}
		if strings.Contains(html, "TOPSECRET") {
			t.Errorf("%s: the page shows the secret file", name)
		}
	}

	for _, page := range []string{"/meta.html", "/frame.html"} {
		shot, err := s.Launch(ctx, srv.URL+page)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if !blockedURL(shot.Blocked, fileURL, ErrBlocked) {
			t.Errorf("%s: blocks %+v lack %s", page, shot.Blocked, fileURL)
		}
		if strings.HasPrefix(shot.URL, "file:") {
			t.Errorf("%s: the page ended at %s", page, shot.URL)
		}
		noSecret(page)
	}

	_, err := s.Launch(ctx, srv.URL+"/302")
	var be *BlockedError
	if !errors.As(err, &be) || !blockedURL(be.Blocks, fileURL, ErrBlocked) {
		t.Errorf("302 to a file: err = %v, want a block of %s", err, fileURL)
	}
	noSecret("/302")

	shot, err := s.Launch(ctx, srv.URL+"/metadata.html")
	if err != nil {
		t.Fatal(err)
	}
	if !blockedURL(shot.Blocked, "http://169.254.169.254/latest/meta-data/", tools.ErrLinkLocal) {
		t.Errorf("metadata image: blocks %+v, want the link-local request", shot.Blocked)
	}

	if _, err := s.Launch(ctx, fileURL); !errors.Is(err, ErrBlocked) {
		t.Errorf("launch of a file URL: %v, want ErrBlocked", err)
	}
}

// TestGuardLocalNeedsLocalLaunch checks that a session launched for a public page may not
// reach loopback addresses. The loopback test server stands for the public page: the session
// is told, after launch, that its page was not local, as Launch decides for a public URL.
func TestGuardLocalNeedsLocalLaunch(t *testing.T) {
	needBrowser(t)
	isolate(t)
	srv, _ := hostileSite(t)
	s := NewSession(Options{Settle: 2 * time.Second})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	if _, err := s.Launch(ctx, srv.URL+"/link.html"); err != nil {
		t.Fatal(err)
	}
	s.allowLocal.Store(false)
	shot, err := s.Click(ctx, 50, 50)
	if err != nil {
		t.Fatal(err)
	}
	if !blockedURL(shot.Blocked, srv.URL+"/other.html", tools.ErrLocalAddr) {
		t.Errorf("click to a loopback page from a public one: blocks %+v, want %s/other.html", shot.Blocked, srv.URL)
	}
	// The same click from a page launched on the loopback address goes through.
	if _, err := s.Launch(ctx, srv.URL+"/link.html"); err != nil {
		t.Fatal(err)
	}
	shot, err = s.Click(ctx, 50, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(shot.Blocked) != 0 || !strings.HasSuffix(shot.URL, "/other.html") {
		t.Errorf("click from a local launch: url %s, blocks %+v", shot.URL, shot.Blocked)
	}
}

// TestToolReportsBlocks runs browser_action on the meta-refresh page: the model reads that a
// navigation to the file was blocked, and the launch was asked as a local-network page.
func TestToolReportsBlocks(t *testing.T) {
	needBrowser(t)
	isolate(t)
	srv, fileURL := hostileSite(t)
	s := NewSession(Options{Settle: 2 * time.Second})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
	env := &tools.Env{Files: &toolstest.Files{Dir: t.TempDir()}, UI: ui}
	res, err := New(s).Run(context.Background(), env, tools.Call{Name: Name, Params: map[string]string{"action": "launch", "url": srv.URL + "/meta.html"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "Blocked a navigation to " + fileURL + ": the browser only opens http and https pages"
	if !strings.Contains(res.Text, want) {
		t.Errorf("result %q lacks %q", res.Text, want)
	}
	if len(ui.Approvals) != 1 || ui.Approvals[0].Category != tools.CategoryLocal {
		t.Errorf("approvals %+v, want one under the local network category", ui.Approvals)
	}
	res, err = New(s).Run(context.Background(), env, tools.Call{Name: Name, Params: map[string]string{"action": "launch", "url": srv.URL + "/302"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text, "Blocked a navigation to "+fileURL) {
		t.Errorf("302 result %+v, want the block", res)
	}
}
