package readfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// bufferHost is a host whose editor holds text of its own for some files (tools.Buffers).
type bufferHost struct {
	tools.Host
	text  map[string]string
	fail  error
	asked []string
}

func (h *bufferHost) ReadText(_ context.Context, abs string) (string, bool, error) {
	h.asked = append(h.asked, abs)
	if h.fail != nil {
		return "", true, h.fail
	}
	t, ok := h.text[abs]
	return t, ok, nil
}

// A host that serves files gives read_file the editor's text; a file it does not serve, an
// image, and a file the ignore file blocks are read from the disk or refused as before; an
// editor that fails says so to the model.
func TestReadThroughTheHost(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("disk a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "b.txt"), []byte("disk b\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "secret.txt"), []byte("disk secret\n"), 0o644))
	host := &bufferHost{text: map[string]string{filepath.Join(root, "a.txt"): "buffer a\nline two\n"}}
	env := &tools.Env{Files: &toolstest.Files{Dir: root, Ignore: []string{"secret.txt"}}, UI: &toolstest.UI{Answer: tools.Answer{Approved: true}}, Host: host}
	read := func(path string) tools.Result {
		t.Helper()
		res, err := New().Run(context.Background(), env, tools.Call{Name: Name, Params: map[string]string{"path": path}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := read("a.txt"); r.IsError || !strings.Contains(r.Text, "buffer a\nline two") {
		t.Errorf("a.txt = %+v, want the editor's text", r)
	}
	if r := read("b.txt"); r.IsError || !strings.Contains(r.Text, "disk b") {
		t.Errorf("b.txt = %+v, want the disk's text", r)
	}
	if r := read("secret.txt"); !r.IsError {
		t.Errorf("an ignored file was read: %+v", r)
	}
	for _, p := range host.asked {
		if strings.HasSuffix(p, "secret.txt") {
			t.Errorf("the editor was asked for an ignored file")
		}
	}
	host.fail = errors.New("buffer locked")
	if r := read("a.txt"); !r.IsError || !strings.Contains(r.Text, "buffer locked") {
		t.Errorf("a failing editor: %+v", r)
	}
}
