package readfile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// A text file larger than MaxBytes (a saved command output) is read a range at a time.
func TestRangeOfAFileTooLargeToLoad(t *testing.T) {
	root := t.TempDir()
	const lines = 2_700_000 // 8 bytes each: 21.6 MB
	f, err := os.Create(filepath.Join(root, "big.log"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(w, "%07d\n", i)
	}
	fmt.Fprint(w, "tail") // an unfinished last line
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, start, end string
		want             string
		isErr            bool
	}{
		{"middle", "1000000", "1000002", "1000000\n1000001\n1000002\n\n[Lines 1000000-1000002 of 2700001.]", false},
		{"first", "1", "1", "0000001\n\n[Lines 1-1 of 2700001.]", false},
		{"to the unfinished end", "2700000", "", "2700000\ntail\n\n[Lines 2700000-2700001 of 2700001.]", false},
		{"end past the end", "2700001", "9000000", "tail\n\n[Lines 2700001-2700001 of 2700001.]", false},
		{"limit applies", "10", "100000", "", false},
		{"start past the end", "2700002", "", "start_line 2700002 is past the end of the file, which has 2700001 lines.", true},
		{"no range refuses", "", "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := &tools.Env{Files: &toolstest.Files{Dir: root}, UI: &toolstest.UI{Answer: tools.Answer{Approved: true}},
				Settings: tools.Settings{ReadFileLineLimit: 3}}
			params := map[string]string{"path": "big.log"}
			if c.start != "" {
				params["start_line"] = c.start
			}
			if c.end != "" {
				params["end_line"] = c.end
			}
			res, err := New().Run(context.Background(), env, tools.Call{Name: Name, Params: params})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isErr {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Text)
			}
			if c.name == "limit applies" {
				c.want = "0000010\n0000011\n0000012\n\n" + message("truncated", 10, 12, 2700001, 13)
			}
			if c.want != "" && res.Text != c.want {
				t.Errorf("got %q, want %q", res.Text, c.want)
			}
		})
	}
}

// The task's scratch folder (saved command output) is read like the workspace: the approval
// says inside, so the read auto-approval for workspace files applies.
func TestScratchCountsAsInside(t *testing.T) {
	scratch := t.TempDir()
	must(t, os.WriteFile(filepath.Join(scratch, "command-1.log"), []byte("one\ntwo\n"), 0o600))
	cases := []struct {
		name    string
		scratch string
		inside  bool
	}{
		{"scratch folder", scratch, true},
		{"no scratch folder", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
			env := &tools.Env{Files: &toolstest.Files{Dir: t.TempDir()}, UI: ui, Scratch: c.scratch}
			res, err := New().Run(context.Background(), env, tools.Call{Name: Name,
				Params: map[string]string{"path": filepath.Join(scratch, "command-1.log"), "start_line": "2"}})
			must(t, err)
			if res.IsError || len(ui.Approvals) != 1 || ui.Approvals[0].Inside != c.inside {
				t.Fatalf("res %+v approvals %+v", res, ui.Approvals)
			}
		})
	}
}
