package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// Actions of browser_action.
const (
	ActionLaunch     = "launch"
	ActionClick      = "click"
	ActionType       = "type"
	ActionScrollDown = "scroll_down"
	ActionScrollUp   = "scroll_up"
	ActionClose      = "close"
)

// Tool is browser_action over one task's session.
type Tool struct {
	session *Session
}

// New returns browser_action driving s.
func New(s *Session) *Tool { return &Tool{session: s} }

func viewport(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec {
	w, h := t.session.Viewport()
	return tools.Spec{
		Name:        Name,
		NeedsImages: true,
		Description: description(w, h),
		Params: []tools.Param{
			{Name: "action", Required: true, Description: messages.Format("param-action"), Usage: "Action to perform (e.g., launch, click, type, scroll_down, scroll_up, close)"},
			{Name: "url", Description: messages.Format("param-url"), Usage: "URL to launch the browser at (optional)"},
			{Name: "coordinate", Description: messages.Format("param-coordinate", viewport(w, h)), Usage: "x,y coordinates (optional)"},
			{Name: "text", Description: messages.Format("param-text"), Usage: "Text to type (optional)"},
		},
		Category: tools.CategoryBrowser,
		ArgParam: "action",
	}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	action, _ := call.Param("action")
	action = strings.TrimSpace(action)
	p := &msg.Browser{Action: action}
	var do func(ctx context.Context) (Shot, error)
	switch action {
	case "":
		return tools.MissingParam(Name, "action"), nil
	case ActionLaunch:
		raw, _ := call.Param("url")
		raw = strings.TrimSpace(raw)
		if raw == "" {
			return tools.MissingParam(Name, "url"), nil
		}
		target, kind, bad := checkURL(ctx, raw, t.session.opts.Lookup)
		if bad != "" {
			return tools.Errorf("%s", bad), nil
		}
		p.URL = raw
		// One rule for both web tools: a page on this machine or the local network is asked
		// under its own category (README "Security").
		category := tools.CategoryBrowser
		if kind == tools.AddrLocal {
			category = tools.CategoryLocal
		}
		ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskBrowserActionLaunch, Category: category,
			Text: raw, Payload: &msg.Browser{Action: action, URL: raw}})
		if err != nil {
			return tools.Result{}, fmt.Errorf("browser_action launch: approval: %w", err)
		}
		if !ans.Approved {
			return tools.Result{Text: messages.Format("denied"), Rejected: true, UserFeedback: ans.Text}, nil
		}
		res, err := t.act(ctx, env, func(ctx context.Context) (Shot, error) { return t.session.Launch(ctx, target) })
		res.UserFeedback = ans.Text
		return res, err
	case ActionClick:
		c, _ := call.Param("coordinate")
		c = strings.TrimSpace(c)
		if c == "" {
			return tools.MissingParam(Name, "coordinate"), nil
		}
		w, h := t.session.Viewport()
		x, y, ok := parseCoordinate(c, w, h)
		if !ok {
			return tools.Errorf("%s", messages.Format("bad-coordinate", c, w, h)), nil
		}
		p.Coordinate = c
		do = func(ctx context.Context) (Shot, error) { return t.session.Click(ctx, x, y) }
	case ActionType:
		text, ok := call.Param("text")
		if !ok || text == "" {
			return tools.MissingParam(Name, "text"), nil
		}
		p.Text = text
		do = func(ctx context.Context) (Shot, error) { return t.session.Type(ctx, text) }
	case ActionScrollDown, ActionScrollUp:
		down := action == ActionScrollDown
		do = func(ctx context.Context) (Shot, error) { return t.session.Scroll(ctx, down) }
	case ActionClose:
		env.UI.Say(ctx, msg.SayBrowserAction, "", p, false)
		if err := t.session.Close(); err != nil {
			return tools.Result{}, fmt.Errorf("browser_action close: %w", err)
		}
		return tools.Result{Text: messages.Format("closed")}, nil
	default:
		return tools.Errorf("%s", messages.Format("unknown-action", action)), nil
	}
	if !t.session.Open() {
		return tools.Errorf("%s", messages.Format("not-open")), nil
	}
	env.UI.Say(ctx, msg.SayBrowserAction, "", p, false)
	return t.act(ctx, env, do)
}

// act runs one action and turns its shot into the result and the chat row.
func (t *Tool) act(ctx context.Context, env *tools.Env, do func(ctx context.Context) (Shot, error)) (tools.Result, error) {
	shot, err := do(ctx)
	if ctx.Err() != nil {
		// Cancelled mid-action: the task stops, and so does its browser.
		return tools.Result{}, errors.Join(ctx.Err(), t.session.Close())
	}
	var be *BlockedError
	switch {
	case errors.As(err, &be):
		return tools.Errorf("%s", strings.TrimSpace(blockLines(be.Blocks))+"\n\n"+messages.Format("blocked-launch")), nil
	case errors.Is(err, ErrBlocked):
		return tools.Errorf("%s", messages.Format("blocked-scheme", strings.TrimPrefix(err.Error(), ErrBlocked.Error()+": "))), nil
	case errors.Is(err, tools.ErrLinkLocal):
		return tools.Errorf("%s", messages.Format("blocked-link-local", err.Error())), nil
	case errors.Is(err, ErrNotOpen):
		return tools.Errorf("%s", messages.Format("not-open")), nil
	case errors.Is(err, ErrNavigate):
		return tools.Errorf("%s", messages.Format("navigate-failed", strings.TrimPrefix(err.Error(), ErrNavigate.Error()+": "))), nil
	case errors.Is(err, ErrNoBrowser):
		return tools.Errorf("%s", messages.Format("no-browser", err.Error())), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("browser_action: %w", err)
	}
	logs := strings.Join(shot.Console, "\n")
	env.UI.Say(ctx, msg.SayBrowserActionResult, "", &msg.Browser{Screenshot: shot.PNG, Logs: logs,
		CurrentURL: shot.URL, Mouse: shot.Mouse}, false)
	if logs == "" {
		logs = messages.Format("no-console")
	}
	mouse := shot.Mouse
	if mouse == "" {
		mouse = messages.Format("no-mouse")
	}
	blocked := blockLines(shot.Blocked)
	if blocked != "" {
		blocked += "\n"
	}
	if !env.Settings.SupportsImages {
		return tools.Result{Text: blocked + messages.Format("result-no-image", logs, shot.URL, mouse)}, nil
	}
	return tools.Result{Text: blocked + messages.Format("result", logs, shot.URL, mouse),
		Images: []tools.Image{{MediaType: "image/png", Data: shot.PNG}}}, nil
}

// parseCoordinate reads "x,y" inside a w×h viewport.
func parseCoordinate(c string, w, h int) (x, y int, ok bool) {
	xs, ys, found := strings.Cut(c, ",")
	if !found {
		return 0, 0, false
	}
	x, errX := strconv.Atoi(strings.TrimSpace(xs))
	y, errY := strconv.Atoi(strings.TrimSpace(ys))
	if errX != nil || errY != nil || x < 0 || y < 0 || x >= w || y >= h {
		return 0, 0, false
	}
	return x, y, true
}

// checkURL returns the URL to open and what its host reaches, or the model-facing reason it
// may not be opened: only http and https pages (README "Security"), never a link-local
// address. An address without a scheme ("localhost:3000") is taken as http.
func checkURL(ctx context.Context, raw string, lookup tools.LookupFunc) (target string, kind tools.AddrKind, bad string) {
	if !strings.Contains(raw, "://") && !strings.Contains(raw, ":/") && !hasScheme(raw) {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, messages.Format("bad-url", raw)
	}
	kind, err = tools.CheckURL(ctx, u, lookup)
	switch {
	case errors.Is(err, tools.ErrLinkLocal):
		return "", 0, messages.Format("blocked-link-local", raw)
	case errors.Is(err, tools.ErrWebScheme) && u.Host == "" && (u.Scheme == "http" || u.Scheme == "https"):
		return "", 0, messages.Format("bad-url", raw)
	case err != nil:
		return "", 0, messages.Format("blocked-scheme", raw)
	}
	return u.String(), kind, ""
}

// hasScheme reports whether raw starts with a scheme that is not a host and port
// ("javascript:", "data:", "about:" but not "localhost:3000").
func hasScheme(raw string) bool {
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok || scheme == "" {
		return false
	}
	if _, err := strconv.Atoi(strings.SplitN(rest, "/", 2)[0]); err == nil {
		return false // host:port
	}
	for _, r := range scheme {
		schemeRune := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '+' || r == '-' || r == '.'
		if !schemeRune {
			return false
		}
	}
	return true
}

// blockLines are the model-facing lines of the session's blocks, one per refused request.
func blockLines(blocks []Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		key := "blocked-scheme"
		switch {
		case errors.Is(bl.Err, tools.ErrLinkLocal):
			key = "blocked-link-local"
		case errors.Is(bl.Err, tools.ErrLocalAddr):
			key = "blocked-local"
		}
		b.WriteString(messages.Format(key, bl.URL))
		b.WriteString("\n")
	}
	return b.String()
}
