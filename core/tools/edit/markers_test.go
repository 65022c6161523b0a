package edit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/tools"
)

// The diffs below are written the way models write them in practice (docs/tools.md, "Editing
// files"): a `>` after the marker keyword, a last block without its REPLACE marker, and SEARCH text
// whose whitespace or middle lines differ from the file.

const funcs = "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n\nfunc c() {\n\tx := 3\n\treturn x\n}\n"

// TestReplaceAsModelsWriteIt runs each diff through a streamed preview and then Run, and
// checks that the preview followed it without error into the saved diff view, the saved file,
// and the notes the model is told. (That the last streamed view equals the final content is
// core/diff's TestPreviewEndsLikeFinal; the tool throttles what it sends.)
func TestReplaceAsModelsWriteIt(t *testing.T) {
	cases := []struct {
		name    string
		diff    string
		want    string   // the file afterwards
		notes   []string // substrings of the result
		notWant []string
	}{
		{name: "trailing gt on SEARCH and REPLACE",
			diff: "------- SEARCH>\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE>\n",
			want: strings.Replace(funcs, "return 1\n", "return 10\n", 1), notWant: []string{"Note on block"}},
		{name: "last block without REPLACE marker",
			diff: "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n------- SEARCH\n\treturn 2\n=======\n\treturn 20\n",
			want: strings.Replace(strings.Replace(funcs, "return 1\n", "return 10\n", 1), "return 2\n", "return 20\n", 1), notWant: []string{"Note on block"}},
		{name: "trimmed match is noted",
			diff:  "------- SEARCH\n  return 2\n=======\n\treturn 20\n+++++++ REPLACE\n",
			want:  strings.Replace(funcs, "return 2\n", "return 20\n", 1),
			notes: []string{"Note on block 1: its SEARCH text matched line 6 of the original file only once whitespace"}},
		{name: "anchor match is noted",
			diff:  "------- SEARCH\nfunc c() {\n\tx := 33\n\treturn x\n}\n=======\nfunc c() {\n\treturn 30\n}\n+++++++ REPLACE\n",
			want:  strings.Replace(funcs, "\tx := 3\n\treturn x\n", "\treturn 30\n", 1),
			notes: []string{"Note on block 1: its SEARCH text did not match exactly", "lines 9-12 of the original file"}},
		{name: "trimmed out of order is noted",
			diff:  "------- SEARCH\n\treturn 2\n=======\n\treturn 20\n+++++++ REPLACE\n------- SEARCH\n    return 1\n=======\n\treturn 10\n+++++++ REPLACE\n",
			want:  strings.Replace(strings.Replace(funcs, "return 1\n", "return 10\n", 1), "return 2\n", "return 20\n", 1),
			notes: []string{"Note on block 2:", "matched line 2 of the original"}, notWant: []string{"Note on block 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"f.go": funcs})
			tool := NewReplace()
			for i := 1; i <= len(c.diff); i += 5 {
				if err := tool.Preview(context.Background(), f.env, replaceCall("f.go", c.diff[:min(i, len(c.diff))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := tool.Preview(context.Background(), f.env, replaceCall("f.go", c.diff)); err != nil {
				t.Fatal(err)
			}
			ss := f.host.opened()
			if len(ss) != 1 {
				t.Fatalf("diff views opened while streaming = %d, want 1", len(ss))
			}
			tool.mu.Lock()
			failed := tool.failed
			tool.mu.Unlock()
			if failed {
				t.Fatal("the streaming preview met an error on a diff Run accepts")
			}
			res, err := tool.Run(context.Background(), f.env, replaceCall("f.go", c.diff))
			if err != nil || res.IsError {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			if got := f.read("f.go"); got != c.want {
				t.Fatalf("file = %q, want %q", got, c.want)
			}
			if _, saved, _ := ss[0].state(); !saved || len(f.host.opened()) != 1 {
				t.Error("the diff view streamed for the call was not the one saved")
			}
			for _, w := range c.notes {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(res.Text, w) {
					t.Errorf("result has %q:\n%s", w, res.Text)
				}
			}
		})
	}
}

// TestMatchNotesResult pins the whole result text of a diff whose blocks were found three
// different ways.
func TestMatchNotesResult(t *testing.T) {
	f := newFixture(t, map[string]string{"f.go": funcs})
	d := block("\treturn 1\n", "\treturn 10\n") +
		block("  return 2\n", "\treturn 20\n") +
		block("func c() {\n\tx := 33\n\treturn x\n}\n", "func c() {\n\treturn 30\n}\n")
	res, err := NewReplace().Run(context.Background(), f.env, replaceCall("f.go", d))
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if strings.Contains(res.Text, "Note on block 1") {
		t.Error("an exact block got a note")
	}
	golden.File(t, filepath.Join("testdata", "results", "replace_match_notes.golden"), res.Text)
}

// TestReplaceRefusedLeavesFile covers diffs that must change nothing: the file stays byte
// for byte, the diff view opened while streaming is reverted, and nobody is asked to approve.
func TestReplaceRefusedLeavesFile(t *testing.T) {
	cases := []struct {
		name string
		call tools.Call
		want []string
	}{
		{name: "diff ends inside SEARCH",
			call: replaceCall("f.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n------- SEARCH>\n\treturn 2\n"),
			want: []string{"the file was not changed", "ends inside the SEARCH section of block 2"}},
		{name: "diff ends with half a REPLACE marker",
			call: replaceCall("f.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPL"),
			want: []string{"the file was not changed", "`+++++++ REPL`"}},
		{name: "two gt after the keyword",
			call: replaceCall("f.go", "------- SEARCH>>\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"),
			want: []string{"the file was not changed", "`------- SEARCH>>`"}},
		{name: "replace call cut off",
			call: tools.Call{Name: "replace_in_file", Partial: true, Params: map[string]string{"path": "f.go",
				"diff": "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n"}},
			want: []string{"replace_in_file call for f.go was cut off", "nothing was changed"}},
		{name: "write call cut off",
			call: tools.Call{Name: "write_to_file", Partial: true, Params: map[string]string{"path": "f.go", "content": "func a() {\n"}},
			want: []string{"write_to_file call for f.go was cut off", "nothing was changed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"f.go": funcs})
			before := f.snap("f.go")
			tool := NewReplace()
			if c.call.Name == "write_to_file" {
				tool = NewWrite()
			}
			body := c.call.Params[tool.bodyParam()]
			for i := 1; i <= len(body); i += 5 {
				p := tools.Call{Name: c.call.Name, Partial: true, Params: map[string]string{"path": "f.go", tool.bodyParam(): body[:i]}}
				if err := tool.Preview(context.Background(), f.env, p); err != nil {
					t.Fatal(err)
				}
			}
			res, err := tool.Run(context.Background(), f.env, c.call)
			if err != nil || !res.IsError {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
			f.unchanged("f.go", before)
			for _, s := range f.host.opened() {
				if _, saved, reverted := s.state(); saved || !reverted {
					t.Errorf("diff view left open or saved: saved=%v reverted=%v", saved, reverted)
				}
			}
			if len(f.ui.approvals) != 0 {
				t.Errorf("approvals = %d, want 0", len(f.ui.approvals))
			}
		})
	}
}
