package readfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/helper"
)

// PDFText returns the text of a PDF document.
func PDFText(ctx context.Context, data []byte) (string, error) {
	return document(ctx, data, "pdf-text")
}

// DOCXText returns the paragraphs of a Word document's main body, one per line; headers,
// footers and comments are left out.
func DOCXText(ctx context.Context, data []byte) (string, error) {
	return document(ctx, data, "docx-text")
}

// document converts data with the helper's command cmd. The document's library runs in
// cairn-helper (core/helper), not in the daemon, so ctx ending kills the conversion. A document
// the helper refuses is an ErrDocument; a helper that cannot run or fails otherwise is an
// ErrHelper.
func document(ctx context.Context, data []byte, cmd string) (string, error) {
	out, err := helper.Run(ctx, data, cmd)
	var refused *helper.RefusedError
	switch {
	case errors.As(err, &refused):
		// The helper's reason starts with the format ("pdf", "docx"), as the in-process
		// readers' did.
		return "", fmt.Errorf("%w: %w", ErrDocument, refused)
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", fmt.Errorf("%w: %w", ErrHelper, err)
	}
	return string(out), nil
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
