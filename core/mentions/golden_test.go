package mentions

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"

	"golang.org/x/tools/txtar"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// Case files (testdata/*.txtar) describe one expansion. Sections:
//
//	input        the user's text
//	fs/PATH      a workspace file
//	git          present: the workspace becomes a git repository with the fs/ files committed
//	             (the section is the commit message, dates and author fixed so hashes are stable)
//	worktree/P   written after that commit (working changes); "<DELETE>" removes the file
//	site/PATH    served by a local HTTP server at $URL/PATH (type from the extension)
//	diagnostics  the editor's problems, one per line: path|line|severity|message|source;
//	             absent means no editor is connected
//	terminal     the terminal's latest output; absent means no terminal
//	mentions     golden: one recognised mention per line, kind and token (Go-quoted)
//	expanded     golden: the expanded text
//
// Placeholders: $URL is the server's address, $HEAD and $SHORT the commit's full and
// 7-digit hash, $ROOT the workspace folder (in output only). <NUL> is a zero byte and
// <GEN:N> expands to N numbered lines.
func TestGolden(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	// Fixed identity and dates make commit hashes reproducible; no user config leaks in.
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "Ada Test", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Ada Test", "GIT_COMMITTER_EMAIL": "ada@example.com",
		"GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
	} {
		t.Setenv(k, v)
	}
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 30 {
		t.Errorf("only %d cases in testdata; the suite promises at least 30", len(paths))
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) { runCase(t, p) })
	}
}

var genRE = regexp.MustCompile(`<GEN:(\d+)>`)

// decode spells out the bytes txtar cannot hold comfortably.
func decode(s string) string {
	s = strings.ReplaceAll(s, "<NUL>", "\x00")
	return genRE.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(genRE.FindStringSubmatch(m)[1])
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	})
}

func runCase(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sec := map[string]string{}
	for _, f := range ar.Files {
		sec[f.Name] = string(f.Data)
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	write := func(prefix string) {
		for _, f := range ar.Files {
			rel, ok := strings.CutPrefix(f.Name, prefix)
			if !ok {
				continue
			}
			p := filepath.Join(root, filepath.FromSlash(rel))
			if strings.TrimSpace(string(f.Data)) == "<DELETE>" {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if strings.HasSuffix(rel, "/") {
				if err := os.MkdirAll(p, 0o755); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(decode(string(f.Data))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A temporary folder inside someone's repository must not count as one.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(root))
	write("fs/")

	repl := map[string]string{}
	if msg, ok := sec["git"]; ok {
		run := func(args ...string) string {
			cmd := exec.Command("git", args...)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		run("init", "-q", "-b", "main")
		run("add", "-A")
		run("commit", "-q", "--allow-empty", "-m", strings.TrimSpace(msg))
		head := run("rev-parse", "HEAD")
		repl["$HEAD"], repl["$SHORT"] = head, head[:7]
	}
	write("worktree/")

	d := Deps{}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	d.Files = ws
	if _, ok := sec["diagnostics"]; ok {
		var ds []tools.Diagnostic
		for line := range strings.Lines(sec["diagnostics"]) {
			f := strings.Split(strings.TrimRight(line, "\n"), "|")
			if len(f) != 5 {
				t.Fatalf("diagnostics line %q: want path|line|severity|message|source", line)
			}
			n, _ := strconv.Atoi(f[1])
			ds = append(ds, tools.Diagnostic{Path: filepath.Join(root, f[0]), Line: n, Severity: f[2], Message: f[3], Source: f[4]})
		}
		d.Diagnostics = DiagnosticsFunc(func(context.Context) ([]tools.Diagnostic, error) { return ds, nil })
	}
	if out, ok := sec["terminal"]; ok {
		d.Terminal = TerminalFunc(func(context.Context) (string, error) { return out, nil })
	}
	site := map[string]string{}
	for name, body := range sec {
		if rel, ok := strings.CutPrefix(name, "site/"); ok {
			site["/"+rel] = body
		}
	}
	if len(site) > 0 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, ok := site[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			types := map[string]string{".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8",
				".png": "image/png", ".json": "application/json"}
			w.Header().Set("Content-Type", types[path.Ext(r.URL.Path)])
			_, _ = w.Write([]byte(decode(body)))
		}))
		t.Cleanup(srv.Close)
		repl["$URL"] = srv.URL
		d.HTTPClient = srv.Client()
	}

	input := sec["input"]
	for k, v := range repl {
		input = strings.ReplaceAll(input, k, v)
	}
	input = strings.TrimSuffix(input, "\n")
	got, ms, err := Expand(context.Background(), d, input)
	if err != nil {
		t.Fatal(err)
	}
	var list strings.Builder
	for _, m := range ms {
		if input[m.Start:m.End] != m.Token {
			t.Errorf("mention %q: input[%d:%d] = %q", m.Token, m.Start, m.End, input[m.Start:m.End])
		}
		fmt.Fprintf(&list, "%s %q\n", m.Kind, m.Token)
	}
	repl["$ROOT"] = root
	undo := func(s string) string {
		// Longest first, so $HEAD wins over its own prefix $SHORT.
		for _, k := range []string{"$ROOT", "$URL", "$HEAD", "$SHORT"} {
			if v, ok := repl[k]; ok {
				s = strings.ReplaceAll(s, v, k)
			}
		}
		return s
	}
	gotList, gotText := undo(list.String()), undo(got)+"\n"

	if golden.Update() {
		var files []txtar.File
		for _, f := range ar.Files {
			if f.Name != "mentions" && f.Name != "expanded" {
				files = append(files, f)
			}
		}
		files = append(files, txtar.File{Name: "mentions", Data: []byte(gotList)}, txtar.File{Name: "expanded", Data: []byte(gotText)})
		ar.Files = files
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want, ok := sec["mentions"]; !ok || want != gotList {
		t.Errorf("mentions:\n got: %s\nwant: %s", gotList, want)
	}
	if want, ok := sec["expanded"]; !ok || want != gotText {
		t.Errorf("expanded text differs:\n--- got ---\n%s--- want ---\n%s", gotText, want)
	}
}
