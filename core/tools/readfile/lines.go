package readfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// ranged reports whether only part of a file larger than MaxBytes is wanted, and the file is
// plain text that can be read a part at a time (a long command output, a big log).
func ranged(ext string, rng lineRange) bool {
	if rng.start == 0 && rng.end == 0 {
		return false
	}
	_, img := images.Get()[ext]
	_, other := otherImages.Get()[ext]
	return !img && !other && ext != ".pdf" && ext != ".docx" && ext != ".ipynb"
}

// readLines returns lines rng of a text file too large to load whole: it scans the file once,
// keeping only the wanted lines (at most limit of them, and at most MaxBytes), and counts the
// rest for the note. Bytes that are not UTF-8 show as U+FFFD.
func readLines(ctx context.Context, abs, rel string, rng lineRange, limit int) (tools.Result, error) {
	f, _, err := workspace.OpenRegular(abs)
	switch {
	case errors.Is(err, workspace.ErrNotRegular):
		return tools.Errorf("%s", message("not_regular", rel, "no longer a regular file")), nil
	case errors.Is(err, fs.ErrNotExist):
		return tools.Errorf("%s", message("not_found", rel)), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("readfile: open %s: %w", rel, err)
	}
	defer func() { _ = f.Close() }() // opened read-only: closing it cannot lose data

	start, end := max(rng.start, 1), rng.end
	truncated := false
	if end == 0 || end-start+1 > limit {
		truncated = end == 0 || end-start+1 > limit
		end = start + limit - 1
	}
	var (
		out  []byte
		line = 1 // the line the next byte belongs to
		last byte
		buf  = make([]byte, 256<<10)
	)
	for {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("readfile: read %s: %w", rel, context.Cause(ctx))
		}
		n, rerr := f.Read(buf)
		for p := buf[:n]; len(p) > 0; {
			i := bytes.IndexByte(p, '\n')
			seg := p
			if i >= 0 {
				seg = p[:i+1]
			}
			if line >= start && line <= end && len(out) < MaxBytes {
				out = append(out, seg...)
			}
			p = p[len(seg):]
			if i >= 0 {
				line++
			}
		}
		if n > 0 {
			last = buf[n-1]
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return tools.Result{}, fmt.Errorf("readfile: read %s: %w", rel, rerr)
		}
	}
	total := line - 1
	if last != 0 && last != '\n' {
		total++ // an unfinished last line
	}
	if start > max(total, 1) {
		return tools.Errorf("%s", message("past_end", start, total)), nil
	}
	if bytes.IndexByte(out, 0) >= 0 {
		return tools.Errorf("%s", message("binary", rel)), nil
	}
	end = min(end, total)
	truncated = truncated && end < total
	body := strings.ToValidUTF8(strings.TrimRight(string(out), "\n"), "\uFFFD")
	if truncated {
		return tools.Result{Text: body + "\n\n" + message("truncated", start, end, total, end+1)}, nil
	}
	return tools.Result{Text: body + "\n\n" + message("range", start, end, total)}, nil
}
