package readfile

import (
	"errors"
	"testing"
)

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
	tests := []struct {
		name    string
		extract func([]byte) (string, error)
		data    []byte
		want    string
		err     error
	}{
		{name: "pdf one page", extract: PDFText, data: minimalPDF("Hello from a PDF"), want: "Hello from a PDF"},
		{name: "pdf two pages", extract: PDFText, data: minimalPDF("First page", "Second page"), want: "First page\n\nSecond page"},
		{name: "pdf garbage", extract: PDFText, data: []byte("%PDF-1.4\nnot really"), err: ErrDocument},
		{name: "docx", extract: DOCXText, data: docx, want: "Quarterly report\nRevenue grew\t12%\nline one\nline two"},
		{name: "docx not a zip", extract: DOCXText, data: []byte("plain text"), err: ErrDocument},
		{name: "docx without body", extract: DOCXText, data: func() []byte {
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
