package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

func TestCheckURL(t *testing.T) {
	root := t.TempDir()
	files := &toolstest.Files{Dir: root, Ignore: []string{"secret"}}
	cases := []struct {
		raw, want, bad string
	}{
		{raw: "http://localhost:3000/x?y=1", want: "http://localhost:3000/x?y=1"},
		{raw: "https://example.com", want: "https://example.com"},
		{raw: "localhost:5173", want: "http://localhost:5173"},
		{raw: fileURL(root) + "/site/index.html", want: fileURL(root) + "/site/index.html"},
		{raw: fileURL(filepath.Dir(root)) + "/passwd", bad: "outside the workspace"},
		{raw: fileURL(root) + "/secret/a.html", bad: "outside the workspace"},
		{raw: "file://otherhost/x.html", bad: "cannot be opened"},
		{raw: "javascript:alert(1)", bad: "cannot be opened"},
		{raw: "chrome://settings", bad: "cannot be opened"},
		{raw: "ftp://example.com/f", bad: "cannot be opened"},
		{raw: "data:text/html,<b>x</b>", bad: "cannot be opened"},
		{raw: "http://", bad: "cannot be opened"},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			got, bad := checkURL(files, tc.raw)
			if tc.bad != "" {
				if !strings.Contains(bad, tc.bad) || got != "" {
					t.Errorf("checkURL = %q, %q; want refusal containing %q", got, bad, tc.bad)
				}
				return
			}
			if bad != "" || got != tc.want {
				t.Errorf("checkURL = %q, %q; want %q", got, bad, tc.want)
			}
		})
	}
}

// fileURL is the file URL of an absolute local path, as a browser writes it: file:///tmp/x,
// file:///C:/Users/x on Windows.
func fileURL(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + p
}

// TestFileURLToPath reads file URL paths the way each platform means them.
func TestFileURLToPath(t *testing.T) {
	cases := []struct {
		path    string
		windows bool
		want    string
	}{
		{"/C:/site/index.html", true, "C:/site/index.html"},
		{"/d:/x", true, "d:/x"},
		{"/site/index.html", true, "/site/index.html"},
		{"/C:/site/index.html", false, "/C:/site/index.html"},
		{"/home/me/a.html", false, "/home/me/a.html"},
		{"/1:/x", true, "/1:/x"},
	}
	for _, c := range cases {
		if got := fileURLToPath(c.path, c.windows); got != c.want {
			t.Errorf("fileURLToPath(%q, windows=%v) = %q, want %q", c.path, c.windows, got, c.want)
		}
	}
}

// TestToolRefusals covers the calls the tool answers without a browser.
func TestToolRefusals(t *testing.T) {
	cases := []struct {
		name   string
		params map[string]string
		answer tools.Answer
		want   string
	}{
		{"missing action", map[string]string{}, tools.Answer{}, "'action'"},
		{"unknown action", map[string]string{"action": "hover"}, tools.Answer{}, "Unknown action 'hover'"},
		{"launch without url", map[string]string{"action": "launch"}, tools.Answer{}, "'url'"},
		{"click before launch", map[string]string{"action": "click", "coordinate": "10,10"}, tools.Answer{}, "No browser session is open"},
		{"scroll before launch", map[string]string{"action": "scroll_down"}, tools.Answer{}, "No browser session is open"},
		{"click without coordinate", map[string]string{"action": "click"}, tools.Answer{}, "'coordinate'"},
		{"coordinate outside", map[string]string{"action": "click", "coordinate": "900,10"}, tools.Answer{}, "inside the 900x600 viewport"},
		{"coordinate garbage", map[string]string{"action": "click", "coordinate": "left"}, tools.Answer{}, "not of the form x,y"},
		{"type without text", map[string]string{"action": "type"}, tools.Answer{}, "'text'"},
		{"forbidden scheme", map[string]string{"action": "launch", "url": "chrome://version"}, tools.Answer{}, "only http and https"},
		{"denied", map[string]string{"action": "launch", "url": "http://localhost:1"}, tools.Answer{Approved: false, Text: "not now"}, "did not allow"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSession(Options{})
			ui := &toolstest.UI{Answer: tc.answer}
			env := &tools.Env{Files: &toolstest.Files{Dir: t.TempDir()}, UI: ui}
			res, err := New(s).Run(context.Background(), env, tools.Call{Name: Name, Params: tc.params})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text, tc.want) {
				t.Errorf("result %q lacks %q", res.Text, tc.want)
			}
			if tc.name == "denied" && (!res.Rejected || res.UserFeedback != "not now") {
				t.Errorf("denied launch: %+v", res)
			}
			if s.Open() {
				t.Error("a browser was started")
			}
		})
	}
}

// recordingUI keeps the payloads of the says, which toolstest.UI drops.
type recordingUI struct {
	toolstest.UI
	payloads []msg.Payload
	kinds    []msg.Kind
}

func (u *recordingUI) Say(ctx context.Context, kind msg.Kind, text string, p msg.Payload, partial bool) {
	u.kinds = append(u.kinds, kind)
	u.payloads = append(u.payloads, p)
	u.UI.Say(ctx, kind, text, p, partial)
}

// TestToolSession drives a whole session through the tool: launch a workspace file, click,
// close; the results carry the screenshot (only for a model that sees images) and the
// console line, and the chat rows carry the same.
func TestToolSession(t *testing.T) {
	needBrowser(t)
	dir := isolate(t)
	root := t.TempDir()
	page, err := siteFS.ReadFile("testdata/site/click.html")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "index.html"), page, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, images := range []bool{true, false} {
		s := NewSession(Options{})
		tool := New(s)
		ui := &recordingUI{UI: toolstest.UI{Answer: tools.Answer{Approved: true}}}
		env := &tools.Env{Files: &toolstest.Files{Dir: root}, UI: ui, Settings: tools.Settings{SupportsImages: images}}
		run := func(params map[string]string) tools.Result {
			t.Helper()
			res, err := tool.Run(context.Background(), env, tools.Call{Name: Name, Params: params})
			if err != nil || res.IsError {
				t.Fatalf("%v: %q %v", params, res.Text, err)
			}
			return res
		}
		launched := run(map[string]string{"action": "launch", "url": "file://" + root + "/index.html"})
		clicked := run(map[string]string{"action": "click", "coordinate": "200,125"})
		closed := run(map[string]string{"action": "close"})

		if len(ui.Approvals) != 1 || ui.Approvals[0].Category != tools.CategoryBrowser || ui.Approvals[0].Ask != msg.AskBrowserActionLaunch {
			t.Errorf("approvals = %+v, want one browser launch", ui.Approvals)
		}
		if !strings.Contains(clicked.Text, "[log] button clicked") || !strings.Contains(clicked.Text, "Mouse position: 200,125") ||
			!strings.Contains(launched.Text, "/index.html") {
			t.Errorf("results lack the console line, mouse or URL:\n%s\n%s", launched.Text, clicked.Text)
		}
		for _, r := range []tools.Result{launched, clicked} {
			if images != (len(r.Images) == 1) {
				t.Fatalf("images=%v: result has %d images", images, len(r.Images))
			}
			if images {
				checkShot(t, Shot{PNG: r.Images[0].Data}, DefaultWidth, DefaultHeight)
			}
		}
		if !strings.Contains(closed.Text, "closed") || s.Open() {
			t.Errorf("close: %q open=%v", closed.Text, s.Open())
		}
		var results int
		for i, k := range ui.kinds {
			if k == msg.SayBrowserActionResult {
				results++
				b := ui.payloads[i].(*msg.Browser)
				checkShot(t, Shot{PNG: b.Screenshot}, DefaultWidth, DefaultHeight)
			}
		}
		if results != 2 {
			t.Errorf("chat rows %v: want two results", ui.kinds)
		}
	}
	if n := chromiumUsing(t, dir); n != 0 {
		t.Errorf("%d Chromium processes left", n)
	}
}
