// Package convert turns documents into text with the libraries made for them: a PDF's or a
// Word document's text, an HTML page as Markdown, text in a legacy encoding as UTF-8. Their
// libraries (and their initialisers) are heavy to load for what few reads need them, so only
// cairn-helper links this package; the daemon reaches it through core/helper on first use (docs/performance.md, "P5 —
// the daemon at rest").
package convert

import (
	"bytes"
	"fmt"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/ledongthuc/pdf"
)

// PDFText returns the text of a PDF document, its pages apart by a blank line.
func PDFText(data []byte) (text string, err error) {
	// The PDF reader panics on some malformed files; a bad document is an error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdf: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("pdf: %w", err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return "", fmt.Errorf("pdf page %d: %w", i, err)
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.TrimSpace(t))
	}
	return b.String(), nil
}

// HTMLToMarkdown converts html to markdown, resolving relative links against base.
func HTMLToMarkdown(html, base string) (string, error) {
	md, err := htmltomarkdown.ConvertString(html, converter.WithDomain(base))
	if err != nil {
		return "", fmt.Errorf("converting HTML: %w", err)
	}
	return strings.TrimSpace(md), nil
}
