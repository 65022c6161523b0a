package agent

import (
	"context"
	"net/http"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/browser"
	"github.com/cairnhq/cairn/core/tools/webfetch"
)

// browserOptions are the browser settings as the browser package takes them.
func browserOptions(s config.Settings, cfg Config) browser.Options {
	w, h := s.BrowserSize()
	proxy, bypass := cfg.Egress.BrowserProxy()
	return browser.Options{ExecPath: s.BrowserPath, RemoteURL: s.BrowserRemoteURL, Width: w, Height: h,
		ProxyServer: proxy, ProxyBypass: bypass, ExtraCAs: cfg.Egress.BrowserCAs}
}

// BrowserFound says which browser the settings would drive: the remote browser's address when
// one is set, else the Chromium or Chrome that find returns for the configured path (nil
// find: browser.Find). The error says why there is none.
func BrowserFound(s config.Settings, find func(configured string) (string, error)) (string, error) {
	if s.BrowserRemoteURL != "" {
		return s.BrowserRemoteURL, nil
	}
	if find == nil {
		find = browser.Find
	}
	return find(s.BrowserPath)
}

// browserOn reports whether the browser is used at all: the setting is on (its default) and
// a browser was found or a remote one is set.
func browserOn(s config.Settings, find func(string) (string, error)) bool {
	if !s.BrowserEnabled {
		return false
	}
	_, err := BrowserFound(s, find)
	return err == nil
}

// webRenderer renders pages built by scripts for web_fetch and @url mentions, in a browser of
// their own; nil when the browser is off or none was found.
func webRenderer(s config.Settings, cfg Config) webfetch.Renderer {
	if !browserOn(s, cfg.FindBrowser) {
		return nil
	}
	return browser.Renderer{Options: browserOptions(s, cfg)}
}

// browserSession returns the task's browser session, or nil when browser_action is not
// offered: the setting is off, no browser was found or the model cannot see the screenshots.
// Nothing starts until the model launches a page.
func browserSession(s config.Settings, info llm.ModelInfo, cfg Config) *browser.Session {
	if !info.SupportsImages || !browserOn(s, cfg.FindBrowser) {
		return nil
	}
	return browser.NewSession(browserOptions(s, cfg))
}

// fetcher is web_fetch's fetcher over the daemon's proxy and trusted authorities
// (core/egress); its own transport still checks every address it dials.
func fetcher(cfg Config) webfetch.Fetcher {
	var f webfetch.Fetcher
	if cfg.Egress.HTTPSProxy != "" || cfg.Egress.HTTPProxy != "" {
		f.Proxy = cfg.Egress.Proxy()
	}
	if tr, ok := transportOf(cfg.HTTPClient); ok {
		f.TLS = tr.TLSClientConfig
	}
	return f
}

// exclusive wraps every tool but browser_action: while the task's browser session is open the
// model must close it before using anything else, so the call is refused with a note saying
// so.
type exclusive struct {
	tools.Tool
	session *browser.Session
}

func (e exclusive) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	if e.session.Open() {
		return tools.Errorf("%s", browser.OpenSessionText(call.Name)), nil
	}
	return e.Tool.Run(ctx, env, call)
}

// exclusivePreview is exclusive for a tool that previews its call while it streams: no diff
// view opens while the browser is open.
type exclusivePreview struct {
	exclusive
	pv tools.Previewer
}

func (e exclusivePreview) Preview(ctx context.Context, env *tools.Env, call tools.Call) error {
	if e.session.Open() {
		return nil
	}
	return e.pv.Preview(ctx, env, call)
}

func (e exclusivePreview) Discard(ctx context.Context) {
	if d, ok := e.pv.(tools.Discarder); ok {
		d.Discard(ctx)
	}
}

// guard makes every tool of reg but browser_action refuse to run while session is open.
func guard(reg *tools.Registry, session *browser.Session) *tools.Registry {
	out := tools.NewRegistry()
	for _, spec := range reg.Specs() {
		t, _ := reg.Get(spec.Name)
		switch pv, ok := t.(tools.Previewer); {
		case spec.Name == browser.Name:
			out.Add(t)
		case ok:
			out.Add(exclusivePreview{exclusive: exclusive{Tool: t, session: session}, pv: pv})
		default:
			out.Add(exclusive{Tool: t, session: session})
		}
	}
	return out
}

// transportOf is the *http.Transport under hc, if it has one.
func transportOf(hc *http.Client) (*http.Transport, bool) {
	if hc == nil {
		return nil, false
	}
	tr, ok := hc.Transport.(*http.Transport)
	return tr, ok
}
