package readfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"

	"github.com/cairnhq/cairn/core/internal/pdftest"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// fixtureRoot writes the fixtures every Run test reads.
func fixtureRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte("key = välue\n"))
	must(t, err)
	sjis, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte(strings.Repeat(japaneseText, 3)))
	must(t, err)
	files := map[string][]byte{
		"main.go":          []byte("package main\n\nfunc main() {}\n"),
		"long.txt":         []byte(numbered(25)),
		"utf16.ini":        utf16,
		"sjis.txt":         sjis,
		"doc.pdf":          pdftest.Minimal("Invoice 42"),
		"doc.docx":         minimalDOCX(t, `<w:p><w:r><w:t>Hello Word</w:t></w:r></w:p>`),
		"nb.ipynb":         []byte(`{"cells":[{"cell_type":"code","source":["print(1)\n"]}]}`),
		"pic.png":          pngBytes(t),
		"photo.jpg":        jpegBytes(t),
		"photo.jpeg":       jpegBytes(t),
		"art.webp":         webpBytes(),
		"anim.gif":         []byte("GIF89a"),
		"fake.png":         []byte("this is not an image"),
		"app.bin":          {0x7f, 'E', 'L', 'F', 0, 0, 1, 2, 3},
		"broken.pdf":       []byte("%PDF-1.4 cut"),
		"secret/token.txt": []byte("hunter2"),
		"empty.txt":        nil,
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, data, 0o644))
	}
	// A sparse file just over the size limit costs no disk.
	f, err := os.Create(filepath.Join(root, "huge.log"))
	must(t, err)
	must(t, f.Truncate(25*1000*1024))
	must(t, f.Close())
	return root
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	root := fixtureRoot(t)
	approve := tools.Answer{Approved: true}
	tests := []struct {
		name      string
		params    map[string]string
		settings  tools.Settings
		answer    tools.Answer
		want      string // exact text, unless contains is set
		contains  string
		isErr     bool
		rejected  bool
		images    []string // media types
		asked     bool     // the user was asked
		ignoreSay bool
	}{
		{name: "plain text", params: map[string]string{"path": "main.go"}, want: "package main\n\nfunc main() {}\n", asked: true},
		{name: "empty file", params: map[string]string{"path": "empty.txt"}, want: "", asked: true},
		{name: "utf-16", params: map[string]string{"path": "utf16.ini"}, want: "key = välue\n", asked: true},
		{name: "shift-jis", params: map[string]string{"path": "sjis.txt"}, want: strings.Repeat(japaneseText, 3), asked: true},
		{name: "pdf", params: map[string]string{"path": "doc.pdf"}, want: "Invoice 42", asked: true},
		{name: "docx", params: map[string]string{"path": "doc.docx"}, want: "Hello Word", asked: true},
		{name: "notebook", params: map[string]string{"path": "nb.ipynb"}, want: "# %% [code] cell 1\nprint(1)", asked: true},
		{name: "broken pdf", params: map[string]string{"path": "broken.pdf"}, contains: "The pdf document broken.pdf could not be read", isErr: true, asked: true},
		{name: "binary", params: map[string]string{"path": "app.bin"}, contains: "app.bin looks like a binary file", isErr: true, asked: true},
		{name: "png with vision", params: map[string]string{"path": "pic.png"}, settings: tools.Settings{SupportsImages: true}, want: "Successfully read image.", images: []string{"image/png"}, asked: true},
		{name: "jpg with vision", params: map[string]string{"path": "photo.jpg"}, settings: tools.Settings{SupportsImages: true}, want: "Successfully read image.", images: []string{"image/jpeg"}, asked: true},
		{name: "jpeg with vision", params: map[string]string{"path": "photo.jpeg"}, settings: tools.Settings{SupportsImages: true}, want: "Successfully read image.", images: []string{"image/jpeg"}, asked: true},
		{name: "webp with vision", params: map[string]string{"path": "art.webp"}, settings: tools.Settings{SupportsImages: true}, want: "Successfully read image.", images: []string{"image/webp"}, asked: true},
		{name: "png without vision", params: map[string]string{"path": "pic.png"}, contains: "cannot look at images", isErr: true},
		{name: "misnamed png", params: map[string]string{"path": "fake.png"}, settings: tools.Settings{SupportsImages: true}, contains: "does not contain a valid png image", isErr: true, asked: true},
		{name: "gif", params: map[string]string{"path": "anim.gif"}, settings: tools.Settings{SupportsImages: true}, contains: "is a GIF image", isErr: true},
		{name: "too large", params: map[string]string{"path": "huge.log"}, contains: "huge.log is 25.0 MB, more than the 20.0 MB", isErr: true},
		{name: "missing path", params: map[string]string{}, contains: "Missing value for required parameter 'path'", isErr: true},
		{name: "unresolvable", params: map[string]string{"path": "bad:x"}, contains: "unknown workspace root", isErr: true},
		{name: "not found", params: map[string]string{"path": "nope.txt"}, contains: "nope.txt does not exist", isErr: true},
		{name: "directory", params: map[string]string{"path": "secret"}, contains: "secret is a folder", isErr: true},
		{name: "ignored", params: map[string]string{"path": "secret/token.txt"}, contains: "blocks access to secret/token.txt", isErr: true, ignoreSay: true},
		{name: "denied", params: map[string]string{"path": "main.go"}, answer: tools.Answer{Text: "no thanks"}, want: "The user denied this operation.", rejected: true, asked: true},
		{name: "range", params: map[string]string{"path": "long.txt", "start_line": "3", "end_line": "5"}, want: "line 3\nline 4\nline 5\n\n[Lines 3-5 of 25.]", asked: true},
		{name: "range end clamps", params: map[string]string{"path": "long.txt", "start_line": "24", "end_line": "99"}, want: "line 24\nline 25\n\n[Lines 24-25 of 25.]", asked: true},
		{name: "only end_line", params: map[string]string{"path": "long.txt", "end_line": "2"}, want: "line 1\nline 2\n\n[Lines 1-2 of 25.]", asked: true},
		{name: "start past end", params: map[string]string{"path": "long.txt", "start_line": "26"}, contains: "start_line 26 is past the end of the file, which has 25 lines", isErr: true, asked: true},
		{name: "start not a number", params: map[string]string{"path": "long.txt", "start_line": "ten"}, contains: `start_line must be a whole number of 1 or more, not "ten"`, isErr: true},
		{name: "end zero", params: map[string]string{"path": "long.txt", "end_line": "0"}, contains: "end_line must be a whole number", isErr: true},
		{name: "end before start", params: map[string]string{"path": "long.txt", "start_line": "5", "end_line": "2"}, contains: "end_line (2) is before start_line (5)", isErr: true},
		{name: "long file note", params: map[string]string{"path": "long.txt"}, settings: tools.Settings{ReadFileLineLimit: 10},
			want: strings.TrimSuffix(numbered(10), "\n") + "\n\n[Showing lines 1-10 of 25. This is not the whole file: call read_file again with start_line 11 (and an end_line) to read further.]", asked: true},
		{name: "range capped by the limit", params: map[string]string{"path": "long.txt", "start_line": "11"}, settings: tools.Settings{ReadFileLineLimit: 10},
			contains: "line 20\n\n[Showing lines 11-20 of 25.", asked: true},
		{name: "default limit leaves short files whole", params: map[string]string{"path": "long.txt"}, want: numbered(25), asked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := tt.answer
			if !tt.rejected {
				answer = approve
			}
			ui := &toolstest.UI{Answer: answer}
			files := &toolstest.Files{Dir: root, Ignore: []string{"secret/token.txt"}}
			env := &tools.Env{Files: files, UI: ui, Settings: tt.settings}
			res, err := New().Run(context.Background(), env, tools.Call{Name: Name, Params: tt.params})
			must(t, err)
			if res.IsError != tt.isErr || res.Rejected != tt.rejected {
				t.Fatalf("IsError=%v Rejected=%v, want %v %v: %q", res.IsError, res.Rejected, tt.isErr, tt.rejected, res.Text)
			}
			if tt.contains != "" {
				if !strings.Contains(res.Text, tt.contains) {
					t.Errorf("text %q does not contain %q", res.Text, tt.contains)
				}
			} else if res.Text != tt.want {
				t.Errorf("text = %q, want %q", res.Text, tt.want)
			}
			var media []string
			for _, img := range res.Images {
				media = append(media, img.MediaType)
				if len(img.Data) == 0 {
					t.Error("image without data")
				}
			}
			if fmt.Sprint(media) != fmt.Sprint(tt.images) {
				t.Errorf("images = %v, want %v", media, tt.images)
			}
			if (len(ui.Approvals) > 0) != tt.asked {
				t.Errorf("asked = %v, want %v", len(ui.Approvals) > 0, tt.asked)
			}
			if tt.ignoreSay != (len(ui.Says) == 1 && ui.Says[0].Kind == msg.SayIgnoreError) {
				t.Errorf("says = %+v", ui.Says)
			}
			abs := filepath.Join(root, tt.params["path"])
			if ok := !res.IsError && !res.Rejected; ok != (len(res.Read) == 1 && res.Read[0] == abs) {
				t.Errorf("Read = %v", res.Read)
			}
			if tt.rejected && res.UserFeedback != tt.answer.Text {
				t.Errorf("feedback = %q", res.UserFeedback)
			}
			if len(ui.Approvals) == 1 {
				a := ui.Approvals[0]
				p, _ := a.Payload.(*msg.Tool)
				if a.Ask != msg.AskTool || a.Category != tools.CategoryRead || a.Path != abs || !a.Inside ||
					p == nil || p.Op != msg.OpReadFile || p.Path != tt.params["path"] {
					t.Errorf("approval = %+v payload %+v", a, p)
				}
			}
		})
	}
}

func TestRunOutsideWorkspace(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "notes.md")
	must(t, os.WriteFile(outside, []byte("# notes\n"), 0o644))
	ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
	env := &tools.Env{Files: &toolstest.Files{Dir: t.TempDir()}, UI: ui}
	res, err := New().Run(context.Background(), env, tools.Call{Name: Name, Params: map[string]string{"path": outside}})
	must(t, err)
	if res.Text != "# notes\n" || len(ui.Approvals) != 1 || ui.Approvals[0].Inside {
		t.Fatalf("res %+v approvals %+v", res, ui.Approvals)
	}
	if p := ui.Approvals[0].Payload.(*msg.Tool); !p.Outside || p.Path != filepath.ToSlash(outside) {
		t.Errorf("payload = %+v", p)
	}
}

func TestRunApproveError(t *testing.T) {
	root := fixtureRoot(t)
	boom := errors.New("host gone")
	env := &tools.Env{Files: &toolstest.Files{Dir: root}, UI: &toolstest.UI{Err: boom}}
	_, err := New().Run(context.Background(), env, tools.Call{Name: Name, Params: map[string]string{"path": "main.go"}})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want wrapped %v", err, boom)
	}
}

func TestSlice(t *testing.T) {
	tests := []struct {
		name              string
		text              string
		start, end, limit int
		want, bad         string
	}{
		{name: "whole", text: "a\nb\n", limit: 5, want: "a\nb\n"},
		{name: "no final newline", text: "a\nb", start: 2, limit: 5, want: "b\n\n[Lines 2-2 of 2.]"},
		{name: "crlf kept", text: "a\r\nb\r\nc\r\n", start: 2, end: 2, limit: 5, want: "b\r\n\n[Lines 2-2 of 3.]"},
		{name: "limit", text: "a\nb\nc\n", limit: 2, want: "a\nb\n\n[Showing lines 1-2 of 3. This is not the whole file: call read_file again with start_line 3 (and an end_line) to read further.]"},
		{name: "past end", text: "a\n", start: 3, limit: 5, bad: "start_line 3 is past the end of the file, which has 1 lines."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bad := Slice(tt.text, tt.start, tt.end, tt.limit)
			if got != tt.want || bad != tt.bad {
				t.Errorf("got (%q, %q), want (%q, %q)", got, bad, tt.want, tt.bad)
			}
		})
	}
}

func TestSpec(t *testing.T) {
	s := New().Spec()
	if s.Name != Name || s.Category != tools.CategoryRead || !s.PlanSafe || s.ArgParam != "path" ||
		len(s.Params) != 3 || !s.Params[0].Required || s.Params[1].Required || s.Params[2].Required || s.Description == "" {
		t.Errorf("spec = %+v", s)
	}
	for _, p := range s.Params {
		if p.Description == "" || p.Usage == "" {
			t.Errorf("param %s lacks text", p.Name)
		}
	}
	for _, key := range []string{"ignored", "not_found", "is_dir", "not_regular", "too_large", "too_large_read", "bad_number", "bad_range", "past_end",
		"no_vision", "bad_image", "unsupported_image", "binary", "bad_document", "image_read", "truncated", "range", "denied"} {
		if _, ok := messages.Sections()[key]; !ok {
			t.Errorf("messages.md lacks %q", key)
		}
	}
}
