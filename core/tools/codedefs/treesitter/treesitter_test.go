package treesitter

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/tools/codedefs"
)

// TestParseGolden parses one realistic file per supported extension and compares the
// definitions (kind, name, line) and the formatted outline with ../testdata/golden/<file>.golden.
func TestParseGolden(t *testing.T) {
	entries, err := os.ReadDir("../testdata/lang")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		seen[strings.ToLower(filepath.Ext(name))] = true
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("../testdata/lang", name))
			if err != nil {
				t.Fatal(err)
			}
			defs, err := Parse(t.Context(), name, src)
			if err != nil {
				t.Fatal(err)
			}
			if len(defs) == 0 {
				t.Fatal("no definitions found")
			}
			var b strings.Builder
			for _, d := range defs {
				fmt.Fprintf(&b, "%d %s %s\n", d.Line, d.Kind, d.Name)
			}
			b.WriteString("\n")
			b.WriteString(codedefs.Format([]codedefs.File{{Name: name, Defs: defs}}))
			b.WriteString("\n")
			golden.File(t, filepath.Join("../testdata/golden", name+".golden"), b.String())
		})
	}
	for _, ext := range Extensions() {
		if !seen[ext] {
			t.Errorf("no testdata/lang file for %s", ext)
		}
	}
}

func TestParseUnsupported(t *testing.T) {
	_, err := Parse(t.Context(), "notes.txt", []byte("hello"))
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
}

// TestParseBrokenSource checks that a syntax error does not hide the definitions that parse.
func TestParseBrokenSource(t *testing.T) {
	src := []byte("package p\n\nfunc Good() {}\n\nfunc Broken( {\n\nfunc Later() int { return 1 }\n")
	defs, err := Parse(t.Context(), "x.go", src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	if len(names) == 0 || names[0] != "Good" {
		t.Fatalf("names = %v, want Good first", names)
	}
}

// The daemon decides which files to send by codedefs' extension list: it must name exactly the
// extensions with a grammar.
func TestExtensionsMatchCodedefs(t *testing.T) {
	if got, want := codedefs.Extensions(), Extensions(); !slices.Equal(got, want) {
		t.Errorf("codedefs.Extensions() = %v, grammars for %v", got, want)
	}
}

// Serve answers each request line with the files it could parse, in order, leaving out the ones
// it cannot outline; a line that is not an array of paths is refused, and the next is answered.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := write("b.go", "package b\n\nfunc B() {}\n")
	a := write("a.py", "def a():\n    pass\n")
	empty := write("empty.go", "package empty\n")
	text := write("notes.txt", "class NotCode:\n")
	huge := write("huge.go", "package huge\n\n// "+strings.Repeat("x", codedefs.MaxFileBytes)+"\nfunc Huge() {}\n")
	first, err := json.Marshal([]string{b, filepath.Join(dir, "missing.go"), a, text, huge, dir, empty})
	if err != nil {
		t.Fatal(err)
	}
	second, err := json.Marshal([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	in := string(first) + "\n" + `{"paths": []}` + "\n" + string(second) + "\n"
	var out strings.Builder
	if err := Serve(t.Context(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d answers for 3 requests:\n%s", len(lines), out.String())
	}
	answers := make([]codedefs.Answer, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &answers[i]); err != nil {
			t.Fatalf("answer %d: %v: %s", i, err, l)
		}
	}
	defA := []codedefs.Definition{{Kind: "function", Name: "a", Line: 1, Text: "def a():"}}
	want := []codedefs.Parsed{
		{Path: b, Defs: []codedefs.Definition{{Kind: "function", Name: "B", Line: 3, Text: "func B() {}"}}},
		{Path: a, Defs: defA},
		{Path: empty, Defs: []codedefs.Definition{}},
	}
	if !reflect.DeepEqual(answers[0], codedefs.Answer{Files: want}) {
		t.Errorf("first answer = %+v\nwant %+v", answers[0], want)
	}
	if answers[1].Error == "" || answers[1].Files != nil {
		t.Errorf("an object was answered %+v, want a refusal", answers[1])
	}
	if !reflect.DeepEqual(answers[2], codedefs.Answer{Files: []codedefs.Parsed{{Path: a, Defs: defA}}}) {
		t.Errorf("third answer = %+v", answers[2])
	}
}
