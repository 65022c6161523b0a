package diff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"

	"golang.org/x/tools/txtar"
)

// Case files (testdata/*.txtar) have these sections:
//
//	original  the file before the edit (or gen: N to generate an N-line file)
//	diff      the replace_in_file diff
//	expected  the file after the edit (golden, rewritten with -update)
//	error     for failing cases: substrings the error must contain, one per line; the first
//	          line may be "kind: <sentinel name>"
//	message   for failing cases: the whole model-facing error (golden, rewritten with -update)
//	edits     optional golden summary of the validated edits (block: start-end level)
//
// Bytes txtar cannot hold are spelled out: <CR> is a carriage return, <BOM> the UTF-8 BOM,
// and a line ending in <NOEOL> marks a file without a final newline.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 60 {
		t.Errorf("only %d cases in testdata; the suite promises at least 60", len(paths))
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runCase(t, path)
		})
	}
}

func runCase(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sec := map[string]string{}
	for _, f := range ar.Files {
		sec[f.Name] = string(f.Data)
	}
	var original []byte
	if g, ok := sec["gen"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(g))
		if err != nil {
			t.Fatalf("gen: %v", err)
		}
		original = genFile(n)
	} else {
		original = []byte(decode(sec["original"]))
	}
	before := bytes.Clone(original)
	res, err := Apply(original, decode(sec["diff"]))
	if !bytes.Equal(original, before) {
		t.Fatal("Apply modified its input")
	}

	want, wantErr := sec["error"]
	if wantErr {
		if err == nil {
			t.Fatalf("want error containing %q, got success:\n%s", want, res.Content)
		}
		if res.Content != nil || res.Edits != nil {
			t.Error("a failed Apply must return an empty Result")
		}
		var ae *ApplyError
		if !errors.As(err, &ae) {
			t.Fatalf("error %T is not an *ApplyError", err)
		}
		for _, sub := range strings.Split(strings.TrimSpace(want), "\n") {
			if kind, ok := strings.CutPrefix(sub, "kind: "); ok {
				if got := sentinelName(ae.Kind); got != kind {
					t.Errorf("kind = %s, want %s", got, kind)
				}
				continue
			}
			if !strings.Contains(err.Error(), sub) {
				t.Errorf("error lacks %q:\n%s", sub, err)
			}
		}
		goldenSection(t, ar, path, "message", err.Error()+"\n")
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	goldenSection(t, ar, path, "expected", encode(string(res.Content)))
	var b strings.Builder
	for _, e := range res.Edits {
		fmt.Fprintf(&b, "%d: %d-%d %s\n", e.Block, e.Start+1, e.End, e.Level)
	}
	goldenSection(t, ar, path, "edits", b.String())
	checkPreviewAgrees(t, original, decode(sec["diff"]), res.Content)
}

// checkPreviewAgrees feeds the diff to a Preview in small chunks: on a valid diff the
// streamed view must end where Apply ends.
func checkPreviewAgrees(t *testing.T, original []byte, diff string, want []byte) {
	t.Helper()
	p := NewPreview(original)
	var v View
	for i := 7; ; i += 7 {
		v = p.Update(diff[:min(i, len(diff))])
		if i >= len(diff) {
			break
		}
	}
	if v.Err != nil {
		t.Fatalf("preview failed on a valid diff: %v", v.Err)
	}
	// Without a trailing newline the last REPLACE marker is still held back.
	if !strings.HasSuffix(diff, "\n") {
		v = p.Update(diff + "\n")
	}
	if got := p.Content(); !bytes.Equal(got, want) {
		t.Errorf("preview content differs from Apply:\n got %q\nwant %q", got, want)
	}
}

func goldenSection(t *testing.T, ar *txtar.Archive, path, name, got string) {
	t.Helper()
	for i := range ar.Files {
		if ar.Files[i].Name != name {
			continue
		}
		if string(ar.Files[i].Data) == got {
			return
		}
		if golden.Update() {
			ar.Files[i].Data = []byte(got)
			writeArchive(t, ar, path)
			return
		}
		t.Errorf("%s differs (run with -update to accept):\n got:\n%s\nwant:\n%s", name, got, ar.Files[i].Data)
		return
	}
	if !golden.Update() {
		t.Errorf("missing section %q (run with -update)", name)
		return
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got)})
	writeArchive(t, ar, path)
}

func writeArchive(t *testing.T, ar *txtar.Archive, path string) {
	t.Helper()
	if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func decode(s string) string {
	s = strings.ReplaceAll(s, "<CR>", "\r")
	s = strings.ReplaceAll(s, "<BOM>", "\uFEFF")
	if cut, ok := strings.CutSuffix(s, "<NOEOL>\n"); ok {
		s = cut
	}
	return s
}

func encode(s string) string {
	s = strings.ReplaceAll(s, "\uFEFF", "<BOM>")
	s = strings.ReplaceAll(s, "\r", "<CR>")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "<NOEOL>\n"
	}
	return s
}

func sentinelName(err error) string {
	for name, s := range map[string]error{
		"ErrNoBlocks": ErrNoBlocks, "ErrMalformedMarker": ErrMalformedMarker,
		"ErrMisplacedMarker": ErrMisplacedMarker, "ErrUnclosedBlock": ErrUnclosedBlock,
		"ErrEmptySearch": ErrEmptySearch, "ErrNoMatch": ErrNoMatch,
		"ErrAmbiguous": ErrAmbiguous, "ErrOverlap": ErrOverlap,
	} {
		if errors.Is(err, s) {
			return name
		}
	}
	return fmt.Sprint(err)
}

// genFile makes an n-line Go-like file whose lines are all distinct, so blocks can target any
// line. Tests and benchmarks share it.
func genFile(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		switch i % 4 {
		case 1:
			fmt.Fprintf(&b, "func f%d(x int) int {\n", i)
		case 2:
			fmt.Fprintf(&b, "\ty := x * %d // step %d\n", i, i)
		case 3:
			fmt.Fprintf(&b, "\treturn y + %d\n", i)
		default:
			fmt.Fprintf(&b, "} // end %d\n", i)
		}
	}
	return b.Bytes()
}
