package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

func TestCheckURL(t *testing.T) {
	cases := []struct {
		raw, want, bad string
		kind           tools.AddrKind
	}{
		{raw: "http://localhost:3000/x?y=1", want: "http://localhost:3000/x?y=1", kind: tools.AddrLocal},
		{raw: "https://93.184.216.34", want: "https://93.184.216.34", kind: tools.AddrPublic},
		{raw: "localhost:5173", want: "http://localhost:5173", kind: tools.AddrLocal},
		{raw: "192.168.0.10:8080/admin", want: "http://192.168.0.10:8080/admin", kind: tools.AddrLocal},
		{raw: "file:///work/site/index.html", bad: "Blocked a navigation to file:///work/site/index.html: the browser only opens http and https pages"},
		{raw: "file://otherhost/x.html", bad: "only opens http and https"},
		{raw: "javascript:alert(1)", bad: "only opens http and https"},
		{raw: "chrome://settings", bad: "only opens http and https"},
		{raw: "view-source:http://example.com", bad: "only opens http and https"},
		{raw: "about:config", bad: "only opens http and https"},
		{raw: "ftp://example.com/f", bad: "only opens http and https"},
		{raw: "data:text/html,<b>x</b>", bad: "only opens http and https"},
		{raw: "http://169.254.169.254/latest/meta-data/", bad: "link-local"},
		{raw: "http://[fe80::1]/", bad: "link-local"},
		{raw: "http://", bad: "cannot be opened"},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			got, kind, bad := checkURL(context.Background(), tc.raw, nil)
			if tc.bad != "" {
				if !strings.Contains(bad, tc.bad) || got != "" {
					t.Errorf("checkURL = %q, %q; want refusal containing %q", got, bad, tc.bad)
				}
				return
			}
			if bad != "" || got != tc.want || kind != tc.kind {
				t.Errorf("checkURL = %q, %d, %q; want %q, %d", got, kind, bad, tc.want, tc.kind)
			}
		})
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
		{"forbidden scheme", map[string]string{"action": "launch", "url": "chrome://version"}, tools.Answer{}, "only opens http and https"},
		{"file URL", map[string]string{"action": "launch", "url": "file:///etc/passwd"}, tools.Answer{Approved: true},
			"Blocked a navigation to file:///etc/passwd: the browser only opens http and https pages"},
		{"metadata address", map[string]string{"action": "launch", "url": "http://169.254.169.254/"}, tools.Answer{Approved: true}, "link-local"},
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

// TestToolSession drives a whole session through the tool: launch a loopback page, click,
// close; the results carry the screenshot (only for a model that sees images) and the
// console line, and the chat rows carry the same.
func TestToolSession(t *testing.T) {
	needBrowser(t)
	dir := isolate(t)
	root := t.TempDir()
	srv := testSite(t)
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
		launched := run(map[string]string{"action": "launch", "url": srv.URL + "/click.html"})
		clicked := run(map[string]string{"action": "click", "coordinate": "200,125"})
		closed := run(map[string]string{"action": "close"})

		if len(ui.Approvals) != 1 || ui.Approvals[0].Category != tools.CategoryLocal || ui.Approvals[0].Ask != msg.AskBrowserActionLaunch {
			t.Errorf("approvals = %+v, want one launch asked as local network", ui.Approvals)
		}
		if !strings.Contains(clicked.Text, "[log] button clicked") || !strings.Contains(clicked.Text, "Mouse position: 200,125") ||
			!strings.Contains(launched.Text, "/click.html") {
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
