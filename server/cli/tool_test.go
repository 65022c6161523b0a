package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/server/cli"
)

// `cairn tool` (docs/cli.md, "cairn tool"): stdin is an assistant message; its first tool call runs
// in DIR and the result is printed exactly as the model would receive it.

const toolSrc = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"

func toolMsg(diff string) string {
	return "I'll change it.\n<replace_in_file>\n<path>main.go</path>\n<diff>\n" + diff + "</diff>\n</replace_in_file>\n"
}

func runTool(t *testing.T, dir, stdin string, extra ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"tool", "-C", dir}, extra...)
	code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(stdin), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func toolDir(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(toolSrc), 0o640); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

func TestToolReplaceInFile(t *testing.T) {
	cases := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		content  string   // the file afterwards
		stdout   []string // substrings
		stderr   []string
		noStdout bool
	}{
		{name: "approved edit is saved",
			stdin: toolMsg("------- SEARCH\n\tprintln(\"hi\")\n=======\n\tprintln(\"hello\")\n+++++++ REPLACE\n"), args: []string{"--yes"},
			code: 0, content: strings.Replace(toolSrc, "hi", "hello", 1),
			stdout: []string{"[replace_in_file for 'main.go'] Result:", "successfully saved to main.go", "<final_file_content path=\"main.go\">"}},
		{name: "bad SEARCH leaves the file",
			stdin: toolMsg("------- SEARCH\n\tprintln(\"ho\")\n=======\n\tprintln(\"hello\")\n+++++++ REPLACE\n"), args: []string{"--yes"},
			code: 1, content: toolSrc,
			stdout: []string{"[replace_in_file for 'main.go'] Result:", "the file was not changed", "Block 1", "The closest part of the file",
				"4 | \tprintln(\"hi\")"}},
		{name: "markers with a trailing > are accepted",
			stdin: toolMsg("------- SEARCH>\n\tprintln(\"hi\")\n=======\n\tprintln(\"hello\")\n+++++++ REPLACE>\n"), args: []string{"--yes"},
			code: 0, content: strings.Replace(toolSrc, "hi", "hello", 1),
			stdout: []string{"[replace_in_file for 'main.go'] Result:", "successfully saved to main.go", "\tprintln(\"hello\")\n}\n</final_file_content>"}},
		{name: "last block without its REPLACE marker is applied",
			stdin: toolMsg("------- SEARCH>\n\tprintln(\"hi\")\n=======\n\tprintln(\"hello\")\n"), args: []string{"--yes"},
			code: 0, content: strings.Replace(toolSrc, "hi", "hello", 1),
			stdout: []string{"successfully saved to main.go"}},
		{name: "diff ending inside SEARCH leaves the file",
			stdin: toolMsg("------- SEARCH>\n\tprintln(\"hi\")\n"), args: []string{"--yes"},
			code: 1, content: toolSrc,
			stdout: []string{"the file was not changed", "ends inside the SEARCH section of block 1"}},
		{name: "whitespace-trimmed match is noted",
			stdin: toolMsg("------- SEARCH\n    println(\"hi\")\n=======\n\tprintln(\"hello\")\n+++++++ REPLACE\n"), args: []string{"--yes"},
			code: 0, content: strings.Replace(toolSrc, "hi", "hello", 1),
			stdout: []string{"successfully saved to main.go", "Note on block 1", "line 4 of the original file"}},
		{name: "not approved without --yes",
			stdin: toolMsg("------- SEARCH\n\tprintln(\"hi\")\n=======\n\tprintln(\"hello\")\n+++++++ REPLACE\n"),
			code:  1, content: toolSrc, stdout: []string{"denied"}, stderr: []string{"--yes"}},
		{name: "no tool call", stdin: "Just words, no tool.\n", args: []string{"--yes"},
			code: 2, content: toolSrc, stderr: []string{"no tool call"}, noStdout: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, file := toolDir(t)
			code, out, errOut := runTool(t, dir, c.stdin, c.args...)
			if code != c.code {
				t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, []byte(c.content)) {
				t.Fatalf("file = %q, want %q", got, c.content)
			}
			if st, _ := os.Stat(file); st.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640", st.Mode().Perm())
			}
			for _, w := range c.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if c.noStdout && out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
		})
	}
}

func TestToolWriteNewFileInNewFolders(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runTool(t, dir, "<write_to_file>\n<path>a/b/c.txt</path>\n<content>\n```\nnew\n```\n</content>\n</write_to_file>", "--yes")
	if code != 0 {
		t.Fatalf("exit = %d\n%s%s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.txt"))
	if err != nil || string(got) != "new\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
}
