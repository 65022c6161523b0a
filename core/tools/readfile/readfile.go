// Package readfile implements read_file: it returns a workspace file's content to the model
// as text (any common encoding, PDF, DOCX, Jupyter notebooks) or, for vision models, as an
// image block. Long files and explicit line ranges come back in slices with a note saying
// where the slice sits, so one call never floods the context window. A PDF's text comes from
// cairn-helper (core/helper), which the daemon starts when a PDF is first read.
package readfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

const (
	// Name is the tool's name in the prompt and in tool calls.
	Name = toolnames.ReadFile
	// MaxBytes is the largest file read_file accepts (Cline's 20 × 1000 × 1024).
	MaxBytes = 20 * 1000 * 1024
	// DefaultLineLimit applies when Settings.ReadFileLineLimit is 0.
	DefaultLineLimit = 2000
)

// images maps the readable image extensions to their media types.
var images = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		".png":  "image/png",
		".jpg":  "image/jpeg",
		".jpeg": "image/jpeg",
		".webp": "image/webp",
	}
}}

// otherImages are image formats the model cannot be sent; naming them gives a clearer error
// than "binary file".
var otherImages = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		".gif": "GIF", ".bmp": "BMP", ".ico": "ICO", ".tif": "TIFF", ".tiff": "TIFF",
		".heic": "HEIC", ".heif": "HEIF", ".avif": "AVIF", ".psd": "PSD",
	}
}}

// Tool is read_file.
type Tool struct{}

// New returns the tool.
func New() *Tool { return &Tool{} }

// Spec implements tools.Tool.
func (*Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params: []tools.Param{
			{Name: "path", Required: true, Description: message("path"), Usage: message("path_usage")},
			{Name: "start_line", Description: message("start_line"), Usage: message("start_line_usage")},
			{Name: "end_line", Description: message("end_line"), Usage: message("end_line_usage")},
		},
		Category: tools.CategoryRead,
		PlanSafe: true,
		ArgParam: "path",
	}
}

// Run implements tools.Tool. Cheap checks (path, range, size, image support) come before the
// approval so the user is never asked about a read that cannot succeed.
func (*Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path, _ := call.Param("path")
	if strings.TrimSpace(path) == "" {
		return tools.MissingParam(Name, "path"), nil
	}
	rng, bad := parseRange(call)
	if bad != "" {
		return tools.Errorf("%s", bad), nil
	}
	abs, inside, err := env.Files.Resolve(path)
	if err != nil {
		return tools.Errorf("%s", err.Error()), nil
	}
	rel := env.Files.Rel(abs)
	// The task's own files (a saved command output) count as the workspace's.
	scratch := env.InScratch(abs)
	inside = inside || scratch
	if !scratch && env.Files.Ignored(abs) {
		env.UI.Say(ctx, msg.SayIgnoreError, rel, nil, false)
		return tools.Errorf("%s", message("ignored", rel)), nil
	}

	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Errorf("%s", message("not_found", rel)), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("readfile: stat %s: %w", rel, err)
	case info.IsDir():
		return tools.Errorf("%s", message("is_dir", rel)), nil
	case !info.Mode().IsRegular():
		return tools.Errorf("%s", message("not_regular", rel, workspace.FileKind(info.Mode()))), nil
	case info.Size() > MaxBytes && !ranged(strings.ToLower(filepath.Ext(abs)), rng):
		return tools.Errorf("%s", message("too_large", rel, humanSize(info.Size()), humanSize(MaxBytes))), nil
	}
	ext := strings.ToLower(filepath.Ext(abs))
	if name, ok := otherImages.Get()[ext]; ok {
		return tools.Errorf("%s", message("unsupported_image", rel, name)), nil
	}
	if _, ok := images.Get()[ext]; ok && !env.Settings.SupportsImages {
		return tools.Errorf("%s", message("no_vision", rel)), nil
	}

	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask:      msg.AskTool,
		Category: tools.CategoryRead,
		Path:     abs,
		Inside:   inside,
		// Like Cline, the row shows where the file is, not its content: the content can be
		// megabytes and the message list is stored and streamed to every client.
		Payload: &msg.Tool{Op: msg.OpReadFile, Path: rel, Content: abs, Outside: !inside},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("readfile: approve %s: %w", rel, err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: message("denied"), UserFeedback: ans.Text}, nil
	}

	var res tools.Result
	text, served, berr := bufferText(ctx, env, abs, ext)
	switch {
	case berr != nil:
		return tools.Errorf("%s", message("editor_read", rel, berr)), nil
	case served:
		out, bad := Slice(text, rng.start, rng.end, lineLimit(env.Settings))
		if bad != "" {
			return tools.Errorf("%s", bad), nil
		}
		res = tools.Result{Text: out}
	case info.Size() > MaxBytes:
		res, err = readLines(ctx, abs, rel, rng, lineLimit(env.Settings))
	default:
		res, err = read(ctx, abs, rel, ext, rng, lineLimit(env.Settings))
	}
	if err != nil {
		return tools.Result{}, err
	}
	res.UserFeedback = ans.Text
	if !res.IsError {
		res.Read = []string{abs}
	}
	return res, nil
}

// bufferText is a text file's content as the editor holds it, when the host serves files
// (tools.Buffers): what the user sees, unsaved changes included. Images and documents are
// always read from the disk, where their bytes are.
func bufferText(ctx context.Context, env *tools.Env, abs, ext string) (string, bool, error) {
	if _, ok := images.Get()[ext]; ok || ext == ".pdf" || ext == ".docx" || ext == ".ipynb" || env.Host == nil || env.InScratch(abs) {
		return "", false, nil
	}
	return tools.HostText(ctx, env.Host, abs)
}

// read loads and converts the file. Model-facing problems come back as error results. The
// file may have changed since Run looked at it, so the read itself refuses what is not a
// regular file and stops at MaxBytes whatever size the file claims.
func read(ctx context.Context, abs, rel, ext string, rng lineRange, limit int) (tools.Result, error) {
	data, err := workspace.ReadRegular(ctx, abs, MaxBytes)
	switch {
	case errors.Is(err, workspace.ErrNotRegular):
		return tools.Errorf("%s", message("not_regular", rel, "no longer a regular file")), nil
	case errors.Is(err, workspace.ErrTooLarge):
		return tools.Errorf("%s", message("too_large_read", rel, humanSize(MaxBytes))), nil
	case errors.Is(err, fs.ErrNotExist):
		return tools.Errorf("%s", message("not_found", rel)), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("readfile: read %s: %w", rel, err)
	}
	if media, ok := images.Get()[ext]; ok {
		if !imageMatches(data, media) {
			return tools.Errorf("%s", message("bad_image", rel, strings.TrimPrefix(media, "image/"))), nil
		}
		return tools.Result{Text: message("image_read"), Images: []tools.Image{{MediaType: media, Data: data}}}, nil
	}

	var text string
	switch ext {
	case ".pdf":
		text, err = PDFText(ctx, data)
	case ".docx":
		text, err = DOCXText(ctx, data)
	case ".ipynb":
		text, err = NotebookText(data)
	default:
		text, _, err = DecodeText(ctx, data)
	}
	switch {
	case errors.Is(err, ErrBinary):
		return tools.Errorf("%s", message("binary", rel)), nil
	case errors.Is(err, ErrDocument):
		return tools.Errorf("%s", message("bad_document", strings.TrimPrefix(ext, "."), rel, err)), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("readfile: %s: %w", rel, err)
	}
	out, bad := Slice(text, rng.start, rng.end, limit)
	if bad != "" {
		return tools.Errorf("%s", bad), nil
	}
	return tools.Result{Text: out}, nil
}

// imageMatches checks the content against the extension's media type, so a misnamed file is
// reported instead of being sent to a provider that would reject the whole request.
func imageMatches(data []byte, media string) bool {
	return http.DetectContentType(data) == media
}

func lineLimit(s tools.Settings) int {
	if s.ReadFileLineLimit > 0 {
		return s.ReadFileLineLimit
	}
	return DefaultLineLimit
}

// lineRange is the requested 1-based inclusive range; 0 means "not given".
type lineRange struct{ start, end int }

func parseRange(call tools.Call) (lineRange, string) {
	var r lineRange
	for _, p := range []struct {
		name string
		dst  *int
	}{{"start_line", &r.start}, {"end_line", &r.end}} {
		v, ok := call.Param(p.name)
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return r, message("bad_number", p.name, v)
		}
		*p.dst = n
	}
	if r.start > 0 && r.end > 0 && r.end < r.start {
		return r, message("bad_range", r.end, r.start)
	}
	return r, ""
}

// Slice returns the lines start..end (1-based, inclusive; 0 means open) of text, at most
// limit of them. A note follows when a range was asked for or the slice is not the whole
// file. The second result is a model-facing error for a start past the end.
func Slice(text string, start, end, limit int) (string, string) {
	// Scan once for the byte offsets of the wanted lines instead of splitting: the file can
	// have hundreds of thousands of lines and only a few thousand are kept.
	total := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		total++ // a final newline ends the last line, it does not start one
	}
	ranged := start > 0 || end > 0
	if start == 0 {
		start = 1
	}
	if start > max(total, 1) {
		return "", message("past_end", start, total)
	}
	if end == 0 || end > total {
		end = total
	}
	truncated := false
	if end-start+1 > limit {
		end = start + limit - 1
		truncated = true
	}
	if !ranged && !truncated {
		return text, ""
	}
	from, to := lineOffset(text, start), lineOffset(text, end+1)
	body := strings.TrimRight(text[from:to], "\n")
	if truncated {
		return body + "\n\n" + message("truncated", start, end, total, end+1), ""
	}
	return body + "\n\n" + message("range", start, end, total), ""
}

// lineOffset returns the byte offset where 1-based line n starts (len(text) past the end).
func lineOffset(text string, n int) int {
	off := 0
	for line := 1; line < n; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

func humanSize(n int64) string {
	const mb = 1000 * 1024
	return fmt.Sprintf("%.1f MB", float64(n)/mb)
}
