package codedefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
)

// TestParseGolden parses one realistic file per supported extension and compares the
// definitions (kind, name, line) and the formatted outline with testdata/golden/<file>.golden.
func TestParseGolden(t *testing.T) {
	entries, err := os.ReadDir("testdata/lang")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		seen[strings.ToLower(filepath.Ext(name))] = true
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata/lang", name))
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
			b.WriteString(Format([]File{{Name: name, Defs: defs}}))
			b.WriteString("\n")
			golden.File(t, filepath.Join("testdata/golden", name+".golden"), b.String())
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

func TestFormat(t *testing.T) {
	tests := []struct {
		name  string
		files []File
		want  string
	}{
		{"empty", nil, NoDefinitions},
		{"only files without definitions", []File{{Name: "a.go"}}, NoDefinitions},
		{
			"adjacent lines share a block, gaps get separators, same line once",
			[]File{
				{Name: "a.go", Defs: []Definition{
					{Line: 3, Text: "type A struct{}"},
					{Line: 4, Text: "type B struct{}"},
					{Line: 9, Text: "func F() {}"},
					{Line: 9, Text: "func F() {}"},
				}},
				{Name: "empty.go"},
				{Name: "b.py", Defs: []Definition{{Line: 1, Text: "def g():"}}},
			},
			"a.go\n|----\n│type A struct{}\n│type B struct{}\n|----\n│func F() {}\n|----\n\n" +
				"b.py\n|----\n│def g():\n|----",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.files); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
