package helper_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/convert"
	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/internal/pdftest"
)

// BenchmarkHelperFirstUse is the cost of what the daemon no longer loads at start (docs/
// performance.md, "P5 — the daemon at rest"): one conversion through cairn-helper, its process
// start included, against the same conversion in process (x-in-process). The PDF is one page;
// the page is a small article.
func BenchmarkHelperFirstUse(b *testing.B) {
	pdf := pdftest.Minimal("What the daemon loads on first use")
	var page strings.Builder
	page.WriteString("<html><body><h1>Notes</h1>")
	for i := range 50 {
		fmt.Fprintf(&page, `<p>Paragraph %d with <a href="/p/%d">a link</a> and <code>code</code>.</p>`, i, i)
	}
	page.WriteString("</body></html>")
	html := page.String()
	cases := []struct {
		name   string
		input  []byte
		args   []string
		inProc func() (string, error)
	}{
		{"pdf-text", pdf, []string{"pdf-text"}, func() (string, error) { return convert.PDFText(pdf) }},
		{"html-markdown", []byte(html), []string{"html-markdown", "https://example.test/"},
			func() (string, error) { return convert.HTMLToMarkdown(html, "https://example.test/") }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			const inProcRuns = 20
			var inProc float64
			for range inProcRuns {
				t0 := time.Now()
				if _, err := c.inProc(); err != nil {
					b.Fatal(err)
				}
				inProc += float64(time.Since(t0))
			}
			inProc /= inProcRuns
			b.ResetTimer()
			for b.Loop() {
				if _, err := helper.Run(b.Context(), c.input, c.args...); err != nil {
					b.Fatal(err)
				}
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/1e6, "ms/first-use")
			b.ReportMetric(inProc/1e6, "in-process-ms")
			b.ReportMetric(per/inProc, "x-in-process")
		})
	}
}
