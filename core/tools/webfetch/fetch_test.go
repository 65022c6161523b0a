package webfetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ct)
			_, _ = w.Write([]byte(body))
		}
	}
	mux.HandleFunc("/doc.html", page("text/html; charset=utf-8",
		`<html><head><script>x()</script></head><body><h1>Guide</h1><p>See <a href="/next">next</a>.</p></body></html>`))
	mux.HandleFunc("/notes.txt", page("text/plain", "plain notes"))
	mux.HandleFunc("/data.json", page("application/json", `{"a":1}`))
	mux.HandleFunc("/logo.png", page("image/png", "\x89PNG\r\n"))
	mux.HandleFunc("/app.html", page("text/html", `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`))
	mux.HandleFunc("/big.txt", page("text/plain", strings.Repeat("a", 70_000)))
	mux.Handle("/old", http.RedirectHandler("/doc.html", http.StatusMovedPermanently))
	mux.HandleFunc("/hang", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// fakeRenderer renders every page as the given HTML.
type fakeRenderer struct {
	html string
	urls []string
}

func (f *fakeRenderer) Render(_ context.Context, u string) (string, error) {
	f.urls = append(f.urls, u)
	return f.html, nil
}

func TestRead(t *testing.T) {
	srv := site(t)
	cases := []struct {
		name, path  string
		maxBytes    int64
		want, bad   string
		wantRenders int
	}{
		{name: "html to markdown", path: "/doc.html", want: "# Guide\n\nSee [next](" + srv.URL + "/next)."},
		{name: "plain text", path: "/notes.txt", want: "plain notes"},
		{name: "redirect followed", path: "/old", want: "# Guide"},
		{name: "json refused", path: "/data.json", bad: "returned application/json content"},
		{name: "image refused", path: "/logo.png", bad: "returned image/png content"},
		{name: "not found", path: "/missing", bad: "answered with status 404 Not Found"},
		{name: "script-only page rendered", path: "/app.html", want: "Rendered by script", wantRenders: 1},
		{name: "long page cut", path: "/big.txt", want: strings.Repeat("a", MaxChars) + "\n\n[The page was cut after 50000 characters.]"},
		{name: "size cap", path: "/big.txt", maxBytes: 100, want: strings.Repeat("a", 100) + "\n\n[The page was cut after 100 characters.]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeRenderer{html: "<p>Rendered by script</p>"}
			text, bad, err := Read(context.Background(), Fetcher{Client: srv.Client(), MaxBytes: tc.maxBytes, AllowLocal: true}, r, srv.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.bad != "" {
				if !strings.Contains(bad, tc.bad) {
					t.Errorf("bad = %q, want %q", bad, tc.bad)
				}
				return
			}
			if bad != "" || !strings.HasPrefix(text, tc.want) {
				t.Errorf("text = %.200q (bad %q), want prefix %q", text, bad, tc.want)
			}
			if tc.want == strings.Repeat("a", MaxChars)+"\n\n[The page was cut after 50000 characters.]" && text != tc.want {
				t.Errorf("long page: got %d characters", len(text))
			}
			if len(r.urls) != tc.wantRenders {
				t.Errorf("renders = %v, want %d", r.urls, tc.wantRenders)
			}
		})
	}
}

func TestFetchErrors(t *testing.T) {
	srv := site(t)
	for _, raw := range []string{"file:///etc/passwd", "ftp://x/y", "javascript:1", "http://"} {
		_, bad, err := Read(context.Background(), Fetcher{}, nil, raw)
		if err != nil || !strings.Contains(bad, "only http and https") {
			t.Errorf("%s: bad=%q err=%v", raw, bad, err)
		}
	}
	_, bad, err := Read(context.Background(), Fetcher{Client: srv.Client(), Timeout: 1, AllowLocal: true}, nil, srv.URL+"/hang")
	if err != nil || !strings.Contains(bad, "deadline exceeded") {
		t.Errorf("timeout: bad=%q err=%v", bad, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Read(ctx, Fetcher{Client: srv.Client(), AllowLocal: true}, nil, srv.URL+"/doc.html"); err == nil {
		t.Error("a cancelled context returned no error")
	}
}

func TestTool(t *testing.T) {
	srv := site(t)
	cases := []struct {
		name   string
		params map[string]string
		answer tools.Answer
		want   string
		isErr  bool
	}{
		{"fetched", map[string]string{"url": srv.URL + "/notes.txt"}, tools.Answer{Approved: true}, "plain notes", false},
		{"missing url", map[string]string{}, tools.Answer{Approved: true}, "'url'", true},
		{"bad scheme", map[string]string{"url": "file:///etc/hosts"}, tools.Answer{Approved: true}, "only http and https", true},
		{"denied", map[string]string{"url": srv.URL + "/notes.txt"}, tools.Answer{}, "did not allow", false},
		{"error status", map[string]string{"url": srv.URL + "/nope"}, tools.Answer{Approved: true}, "404", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ui := &toolstest.UI{Answer: tc.answer}
			tool := New(Fetcher{Client: srv.Client()}, nil)
			if spec := tool.Spec(); !spec.PlanSafe || spec.Category != tools.CategoryBrowser {
				t.Fatalf("spec %+v: want plan-safe, browser category", spec)
			}
			res, err := tool.Run(context.Background(), &tools.Env{UI: ui}, tools.Call{Name: Name, Params: tc.params})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text, tc.want) || res.IsError != tc.isErr {
				t.Errorf("result %+v, want %q (error %v)", res, tc.want, tc.isErr)
			}
		})
	}
}

// TestHTMLToMarkdown converts through cairn-helper, which a cancelled context stops; the
// conversion itself is tested in core/convert.
func TestHTMLToMarkdown(t *testing.T) {
	md, err := HTMLToMarkdown(context.Background(), `<h2>Notes</h2><p><a href="b">b</a></p>`, "https://example.com/a/")
	if want := "## Notes\n\n[b](https://example.com/a/b)"; err != nil || md != want {
		t.Errorf("HTMLToMarkdown = %q, %v; want %q", md, err, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := HTMLToMarkdown(ctx, "<p>x</p>", "https://example.com/"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
