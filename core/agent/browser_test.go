package agent

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/browser"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// TestBrowserOffered: browser_action is in the registry and the prompt only when the setting
// is on (its default), a browser was found or a remote one is set, and the model sees images;
// web_fetch always is.
func TestBrowserOffered(t *testing.T) {
	found := func(string) (string, error) { return "/opt/test/chromium", nil }
	none := func(string) (string, error) { return "", browser.ErrNoBrowser }
	cases := []struct {
		name        string
		enabled     bool
		model       string
		forceImages bool
		remote      string
		find        func(string) (string, error)
		want        bool
	}{
		{"setting off", false, "fake-model", false, "", found, false},
		{"on, model with images", true, "fake-model", false, "", found, true},
		{"on, model without images", true, "deepseek-chat", false, "", found, false},
		{"on, images forced in settings", true, "deepseek-chat", true, "", found, true},
		{"on, no browser found", true, "fake-model", false, "", none, false},
		{"on, none found but a remote browser", true, "fake-model", false, "http://localhost:9222", none, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv()
			env.set(func(s *config.Settings) {
				s.BrowserEnabled, s.API.Model, s.API.SupportsImages = tc.enabled, tc.model, tc.forceImages
				s.BrowserViewport, s.BrowserRemoteURL = "1280x800", tc.remote
			})
			a := New(env, Config{GlobalRulesDir: t.TempDir(), FindBrowser: tc.find})
			d, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := d.Turns.Close(); err != nil {
					t.Error(err)
				}
			}()
			_, has := d.Registry.Get(browser.Name)
			sys := d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil)
			inPrompt := strings.Contains(sys, "## browser_action")
			if has != tc.want || inPrompt != tc.want {
				t.Errorf("browser_action in registry %v, in prompt %v; want %v", has, inPrompt, tc.want)
			}
			if tc.want && !strings.Contains(sys, "1280x800") {
				t.Error("the prompt does not give the configured viewport")
			}
			if _, ok := d.Registry.Get("web_fetch"); !ok || !strings.Contains(sys, "## web_fetch") {
				t.Error("web_fetch is not offered")
			}
			if got := SystemPrompt(t.TempDir(), task.ModeAct, "Cairn CLI", env.Settings(), Config{FindBrowser: tc.find}); strings.Contains(got, "## browser_action") != tc.want {
				t.Error("cairn debug prompt disagrees with the task's prompt")
			}
		})
	}
}

// profilesUnder counts running processes whose Chromium profile lies under dir.
func profilesUnder(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(cmd, []byte("--user-data-dir="+dir)) {
			n++
		}
	}
	return n
}

// TestBrowserSessionIsExclusive: while the session is open every other tool refuses to run;
// closing the task ends the browser.
func TestBrowserSessionIsExclusive(t *testing.T) {
	if _, err := browser.Find(""); err != nil {
		t.Skipf("no browser: %v", err)
	}
	tmp, err := os.MkdirTemp("", "cdp") // short: Chromium puts sockets in it
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.RemoveAll(tmp); err != nil {
			t.Error(err)
		}
	}()
	t.Setenv("TMPDIR", tmp)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<html><body><script>console.log("page up")</script></body></html>`))
	}))
	defer srv.Close()

	env := newEnv()
	env.set(func(s *config.Settings) { s.BrowserEnabled = true })
	root := t.TempDir()
	write(t, root+"/a.txt", "alpha\n")
	d, err := New(env, Config{GlobalRulesDir: t.TempDir()}).Deps(context.Background(), task.Options{Workspace: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
	tenv := &tools.Env{Files: d.Files, UI: ui, Settings: tools.Settings{SupportsImages: true}}
	run := func(name string, params map[string]string) tools.Result {
		t.Helper()
		tool, ok := d.Registry.Get(name)
		if !ok {
			t.Fatalf("%s not offered", name)
		}
		res, err := tool.Run(context.Background(), tenv, tools.Call{Name: name, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("read_file", map[string]string{"path": "a.txt"}); !strings.Contains(res.Text, "alpha") {
		t.Fatalf("read_file before the browser: %q", res.Text)
	}
	if res := run(browser.Name, map[string]string{"action": "launch", "url": srv.URL}); res.IsError || !strings.Contains(res.Text, "page up") {
		t.Fatalf("launch: %q", res.Text)
	}
	for _, name := range []string{"read_file", "attempt_completion", "write_to_file"} {
		res := run(name, map[string]string{"path": "a.txt", "result": "done", "content": "x"})
		if !res.IsError || !strings.Contains(res.Text, "browser session is still open") {
			t.Errorf("%s while the browser is open: %q", name, res.Text)
		}
	}
	if n := profilesUnder(t, tmp); n == 0 {
		t.Fatal("no Chromium process while the session is open")
	}
	if err := d.Turns.Close(); err != nil {
		t.Fatal(err)
	}
	if n := profilesUnder(t, tmp); n != 0 {
		t.Errorf("%d Chromium processes left after the task closed", n)
	}
	if b, _ := os.ReadFile(root + "/a.txt"); string(b) != "alpha\n" {
		t.Errorf("a refused write changed the file: %q", b)
	}
}

// TestBrowserOnByDefault: with untouched default settings browser_action is offered when a
// browser is found, and not when none is; BrowserFound names the binary or says why not.
func TestBrowserOnByDefault(t *testing.T) {
	s := newEnv().Settings()
	found := func(string) (string, error) { return "/opt/test/chromium", nil }
	none := func(string) (string, error) { return "", browser.ErrNoBrowser }
	if got := SystemPrompt(t.TempDir(), task.ModeAct, "Cairn CLI", s, Config{FindBrowser: found}); !strings.Contains(got, "## browser_action") {
		t.Error("default settings, browser found: browser_action not offered")
	}
	if got := SystemPrompt(t.TempDir(), task.ModeAct, "Cairn CLI", s, Config{FindBrowser: none}); strings.Contains(got, "## browser_action") {
		t.Error("default settings, no browser: browser_action offered")
	}
	if p, err := BrowserFound(s, found); err != nil || p != "/opt/test/chromium" {
		t.Errorf("BrowserFound = %q, %v", p, err)
	}
	if _, err := BrowserFound(s, none); !errors.Is(err, browser.ErrNoBrowser) {
		t.Errorf("BrowserFound without a browser: %v, want ErrNoBrowser", err)
	}
}
