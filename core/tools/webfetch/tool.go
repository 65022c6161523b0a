package webfetch

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt.
const Name = toolnames.WebFetch

// MaxChars caps the text the model receives from one page.
const MaxChars = 50_000

// Model-facing texts (docs/conventions.md, "Comments and model-facing text").
var (
	//go:embed description.md
	description string
	//go:embed messages.md
	messagesText string
	messages     = tools.Texts{MD: &messagesText}
)

// Tool is web_fetch.
type Tool struct {
	fetcher Fetcher
	render  Renderer // nil: pages that need scripts are returned as they are
}

// New returns web_fetch using f, rendering script-only pages with r when it is not nil.
func New(f Fetcher, r Renderer) *Tool { return &Tool{fetcher: f, render: r} }

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params: []tools.Param{
			{Name: "url", Required: true, Description: messages.Format("param-url"), Usage: "URL to fetch"},
		},
		Category: tools.CategoryBrowser,
		PlanSafe: true,
		ArgParam: "url",
	}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	raw, _ := call.Param("url")
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return tools.MissingParam(Name, "url"), nil
	}
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		return tools.Errorf("%s", messages.Format("bad-url", raw)), nil
	}
	// One rule for both web tools (README "Security"): link-local never, loopback and private
	// addresses asked under their own category.
	kind, err := tools.CheckWebURL(ctx, raw, t.fetcher.Lookup)
	switch {
	case errors.Is(err, tools.ErrLinkLocal):
		return tools.Errorf("%s", messages.Format("link-local", raw)), nil
	case err != nil:
		return tools.Errorf("%s", messages.Format("bad-url", raw)), nil
	}
	category := tools.CategoryBrowser
	if kind == tools.AddrLocal {
		category = tools.CategoryLocal
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: category, Text: raw,
		Payload: &msg.Tool{Op: msg.OpWebFetch, Path: raw}})
	if err != nil {
		return tools.Result{}, fmt.Errorf("web_fetch: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Text: messages.Format("denied"), Rejected: true, UserFeedback: ans.Text}, nil
	}
	f := t.fetcher
	f.AllowLocal = f.AllowLocal || kind == tools.AddrLocal
	text, bad, err := Read(ctx, f, t.render, raw)
	if err != nil {
		return tools.Result{}, err
	}
	if bad != "" {
		return tools.Result{Text: bad, IsError: true, UserFeedback: ans.Text}, nil
	}
	return tools.Result{Text: text, UserFeedback: ans.Text}, nil
}

// Read fetches raw and returns its text for the model, cut at MaxChars, or the model-facing
// reason it could not (bad). err is set only when ctx ended or cairn-helper, which converts
// HTML (core/helper), could not run.
func Read(ctx context.Context, f Fetcher, r Renderer, raw string) (text, bad string, err error) {
	page, err := f.Fetch(ctx, raw)
	var se *StatusError
	switch {
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case errors.Is(err, ErrScheme):
		return "", messages.Format("bad-url", raw), nil
	case errors.As(err, &se):
		return "", messages.Format("status", raw, se.Status), nil
	case errors.Is(err, tools.ErrLinkLocal):
		return "", messages.Format("link-local", raw), nil
	case errors.Is(err, tools.ErrLocalAddr):
		return "", messages.Format("local", raw), nil
	case errors.Is(err, ErrRedirectScheme):
		return "", messages.Format("redirect-scheme", raw), nil
	case err != nil:
		return "", messages.Format("failed", raw, strings.TrimPrefix(unwrapURL(err), "webfetch: ")), nil
	}
	text, err = page.Text(ctx)
	var te *TypeError
	var refused *helper.RefusedError
	switch {
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case errors.As(err, &te):
		return "", messages.Format("not-text", raw, te.MediaType), nil
	case errors.As(err, &refused):
		return "", messages.Format("failed", raw, err.Error()), nil
	case err != nil:
		// cairn-helper could not run: the installation's fault, for the user to see.
		return "", "", err
	}
	if NeedsScript(page, text) && r != nil {
		html, rerr := r.Render(ctx, page.URL)
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		if rerr == nil {
			md, cerr := HTMLToMarkdown(ctx, html, page.URL)
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
			// A rendering that cannot be converted leaves the script-only page as it was.
			if cerr == nil {
				text = md
			}
		}
	}
	if strings.TrimSpace(text) == "" {
		return messages.Format("empty", raw), "", nil
	}
	if cut, ok := Cut(text, MaxChars); ok || page.Truncated {
		text = cut + "\n\n" + messages.Format("cut", len([]rune(cut)))
	}
	return text, "", nil
}

// unwrapURL drops the `Get "url": ` prefix net/http puts before a transport error: the
// message already names the URL.
func unwrapURL(err error) string {
	m := err.Error()
	if i := strings.Index(m, "\": "); i >= 0 && strings.Contains(m[:i], "Get \"") {
		return m[i+3:]
	}
	return m
}
