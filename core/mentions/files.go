package mentions

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/tools/readfile"
)

// Size limits keep one mention from flooding the context window.
const (
	// maxFileBytes is the most text shown for one file.
	maxFileBytes = 256 << 10
	// maxDocBytes is the largest document (PDF, DOCX, notebook) read for extraction.
	maxDocBytes = 20 << 20
	// maxFolderBytes is the most file text shown for one folder; later files are listed only.
	maxFolderBytes = 1 << 20
)

// pathBlock expands a file or folder mention. A file mention that names a folder (or the
// reverse) shows what is really there.
func (d Deps) pathBlock(ctx context.Context, p string) (block, ref string) {
	name := "file_content"
	if strings.HasSuffix(p, "/") {
		name = "folder_content"
	}
	fail := func(key string, err error) (string, string) {
		t := textData{Path: p}
		if err != nil {
			t.Err = errText(err)
		}
		return tag(name, "path", p, render(key, t)), refFor(name, p)
	}
	if d.Files == nil {
		return fail("missing", nil)
	}
	abs, inside, err := d.Files.Resolve(strings.TrimSuffix(p, "/"))
	switch {
	case err != nil:
		return fail("read-error", err)
	case !inside:
		return fail("outside", nil)
	case d.Files.Ignored(abs) || d.Files.Ignored(filepath.Join(d.Files.Root(), filepath.FromSlash(p))):
		return fail("ignored", nil)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("missing", nil)
	case err != nil:
		return fail("read-error", err)
	case fi.IsDir():
		p = strings.TrimSuffix(p, "/") + "/"
		return tag("folder_content", "path", p, d.folder(ctx, abs, p)), refFor("folder_content", p)
	}
	p = strings.TrimSuffix(p, "/")
	text, err := readText(ctx, abs, fi.Size())
	if err != nil {
		return tag("file_content", "path", p, readError(p, err)), refFor("file_content", p)
	}
	return tag("file_content", "path", p, text), refFor("file_content", p)
}

func refFor(tagName, p string) string {
	if tagName == "folder_content" {
		return render("ref-folder", textData{Path: p})
	}
	return render("ref-file", textData{Path: p})
}

func readError(p string, err error) string {
	if errors.Is(err, readfile.ErrBinary) {
		return render("binary", textData{})
	}
	return render("read-error", textData{Path: p, Err: errText(err)})
}

// folder lists the direct children of abs as a tree, followed by the content of each file.
// Children the ignore file blocks are left out, with a count.
func (d Deps) folder(ctx context.Context, abs, p string) string {
	entries, err := os.ReadDir(abs)
	if err != nil {
		return render("read-error", textData{Path: p, Err: errText(err)})
	}
	type child struct {
		name, abs string
		dir       bool
	}
	var kids []child
	hidden := 0
	for _, e := range entries {
		c := child{name: e.Name(), abs: filepath.Join(abs, e.Name()), dir: e.IsDir()}
		if e.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(c.abs); err == nil {
				c.dir = fi.IsDir()
			}
		}
		if d.Files.Ignored(c.abs) {
			hidden++
			continue
		}
		kids = append(kids, c)
	}
	slices.SortFunc(kids, func(a, b child) int { return cmp.Compare(a.name, b.name) })
	var tree, contents []string
	budget := int64(maxFolderBytes)
	for i, c := range kids {
		branch := "├── "
		if i == len(kids)-1 {
			branch = "└── "
		}
		if c.dir {
			tree = append(tree, branch+c.name+"/")
			continue
		}
		tree = append(tree, branch+c.name)
		contents = append(contents, d.child(ctx, c.abs, p+c.name, &budget))
	}
	if len(kids) == 0 {
		tree = append(tree, render("folder-empty", textData{}))
	}
	if hidden > 0 {
		tree = append(tree, render("folder-hidden", textData{N: int64(hidden)}))
	}
	return strings.Join(append([]string{strings.Join(tree, "\n")}, contents...), "\n\n")
}

// child renders one file of a folder mention, spending budget.
func (d Deps) child(ctx context.Context, abs, p string, budget *int64) string {
	resolved, inside, err := d.Files.Resolve(abs)
	switch {
	case err != nil:
		return tag("file_content", "path", p, render("read-error", textData{Path: p, Err: errText(err)}))
	case !inside:
		return tag("file_content", "path", p, render("outside", textData{Path: p}))
	case d.Files.Ignored(resolved):
		return tag("file_content", "path", p, render("ignored", textData{Path: p}))
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return tag("file_content", "path", p, render("read-error", textData{Path: p, Err: errText(err)}))
	}
	if *budget <= 0 {
		return tag("file_content", "path", p, render("folder-limit", textData{}))
	}
	text, err := readText(ctx, resolved, fi.Size())
	if err != nil {
		return tag("file_content", "path", p, readError(p, err))
	}
	*budget -= int64(len(text))
	return tag("file_content", "path", p, text)
}

// readText returns a file's content as text: documents are extracted, other files decoded
// from their encoding and cut at maxFileBytes with a note. Binary files give
// readfile.ErrBinary. A PDF, a Word document or text in a legacy encoding is converted by
// cairn-helper (core/helper), which ctx ending kills.
func readText(ctx context.Context, abs string, size int64) (string, error) {
	var extract func([]byte) (string, error)
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".pdf":
		extract = func(data []byte) (string, error) { return readfile.PDFText(ctx, data) }
	case ".docx":
		extract = func(data []byte) (string, error) { return readfile.DOCXText(ctx, data) }
	case ".ipynb":
		extract = readfile.NotebookText
	}
	if extract != nil {
		if size > maxDocBytes {
			return "", errTooLarge
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return "", err
		}
		text, err := extract(data)
		if err != nil {
			return "", err
		}
		return capText(text, size), nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	_ = f.Close() // opened read-only: a failed close loses nothing
	if err != nil {
		return "", err
	}
	cut := len(data) > maxFileBytes
	if cut {
		// Cut at a line end so the decoder never sees half a character.
		data = data[:maxFileBytes]
		if nl := strings.LastIndexByte(string(data), '\n'); nl > 0 {
			data = data[:nl+1]
		}
	}
	text, _, err := readfile.DecodeText(ctx, data)
	if err != nil {
		return "", err
	}
	if cut {
		text += "\n" + render("truncated", textData{Shown: int64(len(data)), Size: size})
	}
	return text, nil
}

// capText cuts extracted text at maxFileBytes.
func capText(text string, size int64) string {
	if len(text) <= maxFileBytes {
		return text
	}
	cut := strings.LastIndexByte(text[:maxFileBytes], '\n')
	if cut <= 0 {
		cut = maxFileBytes
	}
	return text[:cut] + "\n" + render("truncated", textData{Shown: int64(cut), Size: size})
}

// errText is an error as the model should read it: the OS error without the absolute path,
// which would leak the user's home folder and says nothing the mention did not. A failure of
// cairn-helper is kept whole: the path there is the helper's, and says what to reinstall.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && !errors.Is(err, readfile.ErrHelper) {
		return pe.Err.Error()
	}
	return err.Error()
}
