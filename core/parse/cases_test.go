package parse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"

	"golang.org/x/tools/txtar"
)

// testCase is one file of testdata/cases: a txtar archive whose comment describes the case
// (a line "crlf" turns every newline of the input into CRLF), with sections "input" (the
// message; the section's final newline is not part of it) and "want" (a JSON array of blocks,
// as `cairn debug parse` prints them).
type testCase struct {
	name  string
	path  string
	arc   *txtar.Archive
	input string
	want  []Block
}

func loadCases(t testing.TB) []testCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no cases in testdata/cases")
	}
	var cases []testCase
	for _, f := range files {
		arc, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c := testCase{name: strings.TrimSuffix(filepath.Base(f), ".txt"), path: f, arc: arc}
		sections := map[string]string{}
		for _, s := range arc.Files {
			sections[s.Name] = string(s.Data)
		}
		in, ok := sections["input"]
		if !ok {
			t.Fatalf("%s: no input section", f)
		}
		c.input = strings.TrimSuffix(in, "\n")
		for _, line := range strings.Split(string(arc.Comment), "\n") {
			if strings.TrimSpace(line) == "crlf" {
				c.input = strings.ReplaceAll(c.input, "\n", "\r\n")
			}
		}
		if err := json.Unmarshal([]byte(sections["want"]), &c.want); err != nil {
			t.Fatalf("%s: want: %v", f, err)
		}
		cases = append(cases, c)
	}
	return cases
}

// canonical renders blocks the way the golden files hold them.
func canonical(t testing.TB, blocks []Block) string {
	t.Helper()
	if blocks == nil {
		blocks = []Block{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(blocks); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// sameBlocks compares blocks treating a nil and an empty Params map as equal.
func sameBlocks(a, b []Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if len(x.Params) == 0 && len(y.Params) == 0 {
			x.Params, y.Params = nil, nil
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func TestCases(t *testing.T) {
	g := DefaultGrammar()
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			got := Parse(g, c.input)
			if golden.Update() {
				for i := range c.arc.Files {
					if c.arc.Files[i].Name == "want" {
						c.arc.Files[i].Data = []byte(canonical(t, got))
					}
				}
				if err := os.WriteFile(c.path, txtar.Format(c.arc), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !sameBlocks(got, c.want) {
				t.Errorf("input %q\ngot:\n%s\nwant:\n%s", c.input, canonical(t, got), canonical(t, c.want))
			}
		})
	}
}
