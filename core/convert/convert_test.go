package convert

import (
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/pdftest"
)

func TestPDFText(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
		err  string // a prefix of the error; "" for none
	}{
		{name: "one page", data: pdftest.Minimal("Hello from a PDF"), want: "Hello from a PDF"},
		{name: "two pages", data: pdftest.Minimal("First page", "Second page"), want: "First page\n\nSecond page"},
		{name: "garbage", data: []byte("%PDF-1.4\nnot really"), err: "pdf"},
		{name: "empty", data: nil, err: "pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PDFText(tt.data)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one starting with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHTMLToMarkdown(t *testing.T) {
	const base = "https://example.com/docs/"
	tests := []struct {
		name, html, want string
	}{
		{name: "heading and relative link",
			html: `<html><head><script>x()</script></head><body><h1>Guide</h1><p>See <a href="/next">next</a>.</p></body></html>`,
			want: "# Guide\n\nSee [next](https://example.com/next)."},
		{name: "link relative to the page", html: `<a href="intro">intro</a>`, want: "[intro](https://example.com/docs/intro)"},
		{name: "list and code", html: "<ul><li>one</li><li>two</li></ul><pre><code>x := 1</code></pre>",
			want: "- one\n- two\n\n```\nx := 1\n```"},
		{name: "no text", html: `<div id="root"></div><script src="/app.js"></script>`, want: ""},
		{name: "surrounding space trimmed", html: "\n\n<p>  words  </p>\n\n", want: "words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HTMLToMarkdown(tt.html, base)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
