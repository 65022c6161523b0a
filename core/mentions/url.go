package mentions

import (
	"context"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"

	"github.com/cairnhq/cairn/core/tools/readfile"
)

// Limits for URL mentions: the download and the markdown the model sees.
const (
	maxURLBytes = 4 << 20
	maxURLChars = 50_000
)

// fetch downloads u and returns it as markdown (HTML) or text.
func (d Deps) fetch(ctx context.Context, u string) string {
	timeout := d.URLTimeout
	if timeout <= 0 {
		timeout = DefaultURLTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := d.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return render("url-error", textData{URL: u, Err: err.Error()})
	}
	req.Header.Set("Accept", "text/html, text/markdown, text/plain;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", "Cairn (url mention)")
	resp, err := client.Do(req)
	if err != nil {
		return render("url-error", textData{URL: u, Err: unwrapURLError(err)})
	}
	body, err := readBody(resp)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return render("url-status", textData{URL: u, Status: resp.Status})
	}
	if err != nil {
		return render("url-error", textData{URL: u, Err: unwrapURLError(err)})
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	media, _, _ := mime.ParseMediaType(ct)
	var text string
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		md, err := htmltomarkdown.ConvertString(string(body), converter.WithDomain(u))
		if err != nil {
			return render("url-error", textData{URL: u, Err: err.Error()})
		}
		text = md
	case strings.HasPrefix(media, "text/") || media == "application/json" || strings.HasSuffix(media, "+json") ||
		media == "application/xml" || strings.HasSuffix(media, "+xml"):
		t, _, err := readfile.DecodeText(body)
		if err != nil {
			return render("url-not-text", textData{URL: u, Type: media})
		}
		text = t
	default:
		return render("url-not-text", textData{URL: u, Type: media})
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) > maxURLChars {
		runes := []rune(text)[:maxURLChars]
		text = string(runes) + "\n" + render("url-truncated", textData{Shown: maxURLChars})
	}
	return text
}

// unwrapURLError drops the "Get \"url\":" prefix net/http adds: the tag already names the URL.
func unwrapURLError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "\": "); i >= 0 && strings.HasPrefix(msg, "Get \"") {
		return msg[i+3:]
	}
	return msg
}

// readBody reads at most maxURLBytes of a response and closes it; an error status gets no
// read at all. The body is only read from, so an error from closing it loses nothing.
func readBody(resp *http.Response) ([]byte, error) {
	var body []byte
	var err error
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxURLBytes))
	}
	_ = resp.Body.Close()
	return body, err
}
