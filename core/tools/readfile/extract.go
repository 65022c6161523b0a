package readfile

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairnhq/cairn/core/helper"
)

// PDFText returns the text of a PDF document. The PDF library runs in cairn-helper
// (core/helper), not in the daemon, so ctx ending kills the conversion. A document the helper
// refuses is an ErrDocument; a helper that cannot run or fails otherwise is an ErrHelper.
func PDFText(ctx context.Context, data []byte) (string, error) {
	out, err := helper.Run(ctx, data, "pdf-text")
	var refused *helper.RefusedError
	switch {
	case errors.As(err, &refused):
		// The helper's reason starts with "pdf", as the in-process reader's did.
		return "", fmt.Errorf("%w: %w", ErrDocument, refused)
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", fmt.Errorf("%w: %w", ErrHelper, err)
	}
	return string(out), nil
}

// DOCXText returns the paragraphs of a Word document's main body, one per line. Only
// word/document.xml is read: headers, footers and comments are left out.
func DOCXText(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%w: docx: %w", ErrDocument, err)
	}
	f, err := zr.Open("word/document.xml")
	if err != nil {
		return "", fmt.Errorf("%w: docx: %w", ErrDocument, err)
	}
	text, err := wordParagraphs(f)
	_ = f.Close() // an entry of an in-memory zip, only read from: closing it loses nothing
	if err != nil {
		return "", fmt.Errorf("%w: docx: %w", ErrDocument, err)
	}
	return text, nil
}

// wordParagraphs reads WordprocessingML and returns its text, one paragraph per line.
func wordParagraphs(r io.Reader) (string, error) {
	const wordML = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	var b strings.Builder
	dec := xml.NewDecoder(r)
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != wordML {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				b.WriteByte('\t')
			case "br", "cr":
				b.WriteByte('\n')
			}
		case xml.EndElement:
			if t.Name.Space != wordML {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				b.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// notebook is the part of the .ipynb format we read. Cell sources are a string or a list of
// line strings depending on the writer.
type notebook struct {
	Cells []struct {
		CellType string          `json:"cell_type"`
		Source   json.RawMessage `json:"source"`
	} `json:"cells"`
}

// NotebookText returns the markdown and code cells of a Jupyter notebook, each under a
// marker line naming its number and type. Outputs are left out: they are often large and
// the model can rerun the code.
func NotebookText(data []byte) (string, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return "", fmt.Errorf("%w: ipynb: %w", ErrDocument, err)
	}
	var b strings.Builder
	n := 0
	for _, c := range nb.Cells {
		if c.CellType != "markdown" && c.CellType != "code" {
			continue
		}
		src, err := cellSource(c.Source)
		if err != nil {
			return "", fmt.Errorf("%w: ipynb cell %d: %w", ErrDocument, n+1, err)
		}
		n++
		if n > 1 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "# %%%% [%s] cell %d\n", c.CellType, n)
		b.WriteString(strings.TrimRight(src, "\n"))
	}
	return b.String(), nil
}

func cellSource(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", err
	}
	return strings.Join(lines, ""), nil
}
