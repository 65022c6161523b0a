package readfile

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/helper"

	"github.com/cairnhq/cairn/core/internal/pdftest"
)

// TestPDFText reads PDFs through cairn-helper: the text of a good one, an ErrDocument naming
// the reader's complaint for a broken one, and the caller's error when ctx has ended. The
// extraction itself is tested in core/convert.
func TestPDFText(t *testing.T) {
	ctx := context.Background()
	got, err := PDFText(ctx, pdftest.Minimal("First page", "Second page"))
	if err != nil || got != "First page\n\nSecond page" {
		t.Errorf("PDFText = %q, %v; want the two pages", got, err)
	}

	_, err = PDFText(ctx, []byte("%PDF-1.4\nnot really"))
	var refused *helper.RefusedError
	if !errors.Is(err, ErrDocument) || errors.Is(err, ErrHelper) || !errors.As(err, &refused) {
		t.Fatalf("garbage: err = %v, want an ErrDocument from a refusal", err)
	}
	if want := ErrDocument.Error() + ": pdf"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("garbage: err = %q, want it to start with %q", err, want)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := PDFText(cancelled, pdftest.Minimal("x")); !errors.Is(err, context.Canceled) || errors.Is(err, ErrDocument) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestExtractors(t *testing.T) {
	docx := minimalDOCX(t,
		`<w:p><w:r><w:t>Quarterly report</w:t></w:r></w:p>`+
			`<w:p><w:r><w:t xml:space="preserve">Revenue </w:t></w:r><w:r><w:t>grew</w:t><w:tab/><w:t>12%</w:t></w:r></w:p>`+
			`<w:p><w:r><w:t>line one</w:t><w:br/><w:t>line two</w:t></w:r></w:p>`)
	notebook := `{"cells":[
		{"cell_type":"markdown","source":["# Analysis\n","Load the data."]},
		{"cell_type":"code","source":"import pandas as pd\ndf = pd.read_csv('x.csv')\n","outputs":[{"text":"ignored"}]},
		{"cell_type":"raw","source":"skipped"}
	],"nbformat":4}`
	// Word documents are read through cairn-helper.
	wordText := func(data []byte) (string, error) { return DOCXText(context.Background(), data) }
	tests := []struct {
		name    string
		extract func([]byte) (string, error)
		data    []byte
		want    string
		err     error
	}{
		{name: "docx", extract: wordText, data: docx, want: "Quarterly report\nRevenue grew\t12%\nline one\nline two"},
		{name: "docx not a zip", extract: wordText, data: []byte("plain text"), err: ErrDocument},
		{name: "docx without body", extract: wordText, data: func() []byte {
			b := minimalDOCX(t, "")
			return b
		}(), want: ""},
		{name: "notebook", extract: NotebookText, data: []byte(notebook),
			want: "# %% [markdown] cell 1\n# Analysis\nLoad the data.\n\n# %% [code] cell 2\nimport pandas as pd\ndf = pd.read_csv('x.csv')"},
		{name: "notebook bad json", extract: NotebookText, data: []byte("{"), err: ErrDocument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.extract(tt.data)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
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
