package mentions

import (
	"context"
	"errors"
	"strings"

	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/webfetch"
)

// Limits for URL mentions: the download and the markdown the model sees.
const (
	maxURLBytes = 4 << 20
	maxURLChars = 50_000
)

// fetch downloads u with the fetcher web_fetch uses and returns it as markdown (HTML) or
// text. HTML with no text (a page its scripts build) is rendered in the browser when Deps has
// a Renderer.
func (d Deps) fetch(ctx context.Context, u string) string {
	timeout := d.URLTimeout
	if timeout <= 0 {
		timeout = DefaultURLTimeout
	}
	f := webfetch.Fetcher{Client: d.HTTPClient, Timeout: timeout, MaxBytes: maxURLBytes, UserAgent: "Cairn (url mention)",
		// The user typed this address: a page on their own machine is what they asked for.
		AllowLocal: true}
	page, err := f.Fetch(ctx, u)
	var se *webfetch.StatusError
	switch {
	case errors.As(err, &se):
		return render("url-status", textData{URL: u, Status: se.Status})
	case err != nil:
		return render("url-error", textData{URL: u, Err: unwrapURLError(err)})
	}
	media := page.MediaType
	var text string
	switch {
	case page.IsHTML():
		md, err := webfetch.HTMLToMarkdown(ctx, string(page.Body), page.URL)
		if err != nil {
			return render("url-error", textData{URL: u, Err: err.Error()})
		}
		if webfetch.NeedsScript(page, md) && d.Render != nil {
			if html, err := d.Render.Render(ctx, page.URL); err == nil {
				if rendered, err := webfetch.HTMLToMarkdown(ctx, html, page.URL); err == nil {
					md = rendered
				}
			}
		}
		text = md
	case strings.HasPrefix(media, "text/") || media == "application/json" || strings.HasSuffix(media, "+json") ||
		media == "application/xml" || strings.HasSuffix(media, "+xml"):
		t, _, err := readfile.DecodeText(ctx, page.Body)
		if err != nil {
			return render("url-not-text", textData{URL: u, Type: media})
		}
		text = t
	default:
		return render("url-not-text", textData{URL: u, Type: media})
	}
	text = strings.TrimSpace(text)
	if cut, ok := webfetch.Cut(text, maxURLChars); ok {
		text = cut + "\n" + render("url-truncated", textData{Shown: maxURLChars})
	}
	return text
}

// unwrapURLError drops the "Get \"url\":" prefix net/http adds: the tag already names the URL.
func unwrapURLError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "webfetch: ")
	if i := strings.Index(msg, "\": "); i >= 0 && strings.HasPrefix(msg, "Get \"") {
		return msg[i+3:]
	}
	return msg
}
