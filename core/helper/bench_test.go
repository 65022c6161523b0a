package helper_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/convert"
	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/internal/pdftest"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/codedefs/treesitter"
)

// BenchmarkHelperFirstUse is the cost of what the daemon no longer loads at start (docs/
// performance.md, "P5 — the daemon at rest"): one conversion through cairn-helper, its process
// start included, against the same conversion in process (x-in-process). The PDF is one page;
// the Word document a few paragraphs; the legacy text 4 KB of Latin-1 after 16 KB of ASCII;
// the page is a small article; the code is codedefs' testdata, one file per language, as one
// list_code_definition_names sends it.
func BenchmarkHelperFirstUse(b *testing.B) {
	pdf := pdftest.Minimal("What the daemon loads on first use")
	var page strings.Builder
	page.WriteString("<html><body><h1>Notes</h1>")
	for i := range 50 {
		fmt.Fprintf(&page, `<p>Paragraph %d with <a href="/p/%d">a link</a> and <code>code</code>.</p>`, i, i)
	}
	page.WriteString("</body></html>")
	html := page.String()
	sources, err := filepath.Glob("../tools/codedefs/testdata/lang/*")
	if err != nil || len(sources) == 0 {
		b.Fatalf("no sources to outline: %v", err)
	}
	for i, p := range sources {
		if sources[i], err = filepath.Abs(p); err != nil {
			b.Fatal(err)
		}
	}
	paths, err := json.Marshal(sources)
	if err != nil {
		b.Fatal(err)
	}
	docx := wordDocument(b, "Quarterly report", "Revenue grew 12%", "What the daemon loads on first use")
	legacy := []byte(strings.Repeat("plain ascii line\n", 1000) + strings.Repeat("caf\xe9 cr\xe8me, d\xe9j\xe0 vu\n", 200))
	cases := []struct {
		name   string
		input  []byte
		args   []string
		inProc func() (string, error)
	}{
		{"pdf-text", pdf, []string{"pdf-text"}, func() (string, error) { return convert.PDFText(pdf) }},
		{"docx-text", docx, []string{"docx-text"}, func() (string, error) { return convert.DOCXText(docx) }},
		{"decode-text", legacy, []string{"decode-text"}, func() (string, error) {
			text, _, err := convert.LegacyText(legacy)
			return text, err
		}},
		{"html-markdown", []byte(html), []string{"html-markdown", "https://example.test/"},
			func() (string, error) { return convert.HTMLToMarkdown(html, "https://example.test/") }},
		{codedefs.HelperCommand, append(paths, '\n'), []string{codedefs.HelperCommand},
			func() (string, error) {
				_, err := treesitter.Outline(context.Background(), sources)
				return "", err
			}},
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

// wordDocument is a minimal .docx holding paragraphs.
func wordDocument(b *testing.B, paragraphs ...string) []byte {
	var body strings.Builder
	for _, p := range paragraphs {
		fmt.Fprintf(&body, "<w:p><w:r><w:t>%s</w:t></w:r></w:p>", p)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err == nil {
		_, err = fmt.Fprintf(w, `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>%s</w:body></w:document>`, body.String())
	}
	if err = errors.Join(err, zw.Close()); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
