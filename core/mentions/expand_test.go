package mentions

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

func newWorkspace(t *testing.T, files map[string]string) *workspace.Workspace {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestExpandNoWorkspace(t *testing.T) {
	got, ms, err := Expand(context.Background(), Deps{}, "@/a.txt @git-changes")
	if err != nil || len(ms) != 2 {
		t.Fatalf("Expand = %d mentions, %v", len(ms), err)
	}
	for _, want := range []string{"<file_content path=\"a.txt\">\nError: a.txt does not exist", "<git_working_state>\nError: git failed: no workspace"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestExpandSourceErrors(t *testing.T) {
	boom := errors.New("boom")
	d := Deps{
		Diagnostics: DiagnosticsFunc(func(context.Context) ([]tools.Diagnostic, error) { return nil, boom }),
		Terminal:    TerminalFunc(func(context.Context) (string, error) { return "", boom }),
	}
	got, _, err := Expand(context.Background(), d, "@problems @terminal")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"could not report problems: boom", "terminal output could not be read: boom"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestExpandCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ws := newWorkspace(t, map[string]string{"a.txt": "A\n"})
	got, _, err := Expand(ctx, Deps{Files: ws}, "@/a.txt")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.Contains(got, "<file_content") {
		t.Errorf("a cancelled expansion still returns what it has, got:\n%s", got)
	}
}

func TestURLTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	got, _, err := Expand(context.Background(), Deps{HTTPClient: srv.Client(), URLTimeout: time.Millisecond}, "@"+srv.URL+"/slow")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "could not be fetched: context deadline exceeded") {
		t.Errorf("want a timeout inside the tag, got:\n%s", got)
	}
}

func TestURLTruncated(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(strings.Repeat("é", maxURLChars+10)))
	}))
	defer srv.Close()
	got, _, _ := Expand(context.Background(), Deps{HTTPClient: srv.Client()}, "@"+srv.URL)
	if !strings.Contains(got, strings.Repeat("é", maxURLChars)+"\n[The page was cut after 50000 characters.]") {
		t.Errorf("want the page cut at %d characters with a note", maxURLChars)
	}
}

func TestLargeFileTruncated(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	body := strings.Repeat(line, maxFileBytes/100+50)
	ws := newWorkspace(t, map[string]string{"big.txt": body})
	got, _, err := Expand(context.Background(), Deps{Files: ws}, "@/big.txt")
	if err != nil {
		t.Fatal(err)
	}
	shown := (maxFileBytes / 100) * 100
	want := body[:shown] + "\n[Only the first 262100 of " + itoa(len(body)) + " bytes are shown.]\n</file_content>"
	if !strings.HasSuffix(got, want) {
		t.Errorf("want the file cut at its last whole line before %d bytes; tail:\n%s", maxFileBytes, got[len(got)-200:])
	}
}

func TestFolderBudget(t *testing.T) {
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", maxFileBytes/100)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		files["dir/"+n+".txt"] = big
	}
	ws := newWorkspace(t, files)
	got, _, _ := Expand(context.Background(), Deps{Files: ws}, "@/dir/")
	if n := strings.Count(got, "content limit was reached"); n != 1 {
		t.Errorf("want exactly the sixth file held back by the folder limit, %d were", n)
	}
	if !strings.Contains(got, "<file_content path=\"dir/f.txt\">\n(Not shown") {
		t.Error("the last file should be the one held back")
	}
}

func TestCapLines(t *testing.T) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, itoa(i))
	}
	got := strings.Split(capLines(strings.Join(lines, "\n")), "\n")
	if len(got) != maxGitLines+1 {
		t.Fatalf("got %d lines, want %d kept plus a note", len(got), maxGitLines)
	}
	if got[99] != "99" || got[100] != "[... 500 lines omitted ...]" || got[101] != "600" || got[500] != "999" {
		t.Errorf("head/note/tail wrong: %q %q %q %q", got[99], got[100], got[101], got[500])
	}
	short := strings.Join(lines[:maxGitLines], "\n")
	if capLines(short) != short {
		t.Error("output within the cap must be unchanged")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// rendererFunc adapts a function to webfetch.Renderer.
type rendererFunc func(ctx context.Context, url string) (string, error)

func (f rendererFunc) Render(ctx context.Context, url string) (string, error) { return f(ctx, url) }

// TestURLNeedsScript: HTML with no text is rendered in the browser; a page with text is not.
func TestURLNeedsScript(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/app" {
			_, _ = w.Write([]byte(`<div id="root"></div><script src="/app.js"></script>`))
			return
		}
		_, _ = w.Write([]byte(`<p>static text</p>`))
	}))
	defer srv.Close()
	var rendered []string
	d := Deps{HTTPClient: srv.Client(), Render: rendererFunc(func(_ context.Context, u string) (string, error) {
		rendered = append(rendered, u)
		return "<h1>Built by script</h1>", nil
	})}
	got, _, err := Expand(context.Background(), d, "@"+srv.URL+"/app and @"+srv.URL+"/static")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "# Built by script") || !strings.Contains(got, "static text") {
		t.Errorf("expansion lacks the rendered or the static page:\n%s", got)
	}
	if len(rendered) != 1 || rendered[0] != srv.URL+"/app" {
		t.Errorf("rendered %v, want only the script page", rendered)
	}
}
