package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/internal/wine"
	"github.com/cairnhq/cairn/core/lsp"
	"github.com/cairnhq/cairn/core/tools"
)

// goModule writes a small Go module and returns its root and main.go's path.
func goModule(t *testing.T) (root, main string) {
	t.Helper()
	root = t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	main = filepath.Join(root, "main.go")
	write(t, main, "package main\n\nimport \"fmt\"\n\nfunc greet() string { return \"hi\" }\n\nfunc main() {\n\tfmt.Println(greet())\n}\n")
	return root, main
}

// patient is the manager's configuration in tests that check what servers say, not how fast:
// waits long enough for a loaded machine (the figures are make bench's).
var patient = lsp.Config{StartWait: 3 * time.Minute, Wait: time.Minute}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func need(t *testing.T, program string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		wine.Skip(t, "the Wine prefix has no language servers (make deps installs Linux ones)")
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed: .ci/run installs it (make deps)", program)
		}
		t.Skipf("%s is not installed (make deps installs it)", program)
	}
}

func errorsOf(ds []tools.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == "error" {
			out = append(out, d.Message)
		}
	}
	return out
}

// A Go edit that breaks the build gets gopls's error within the bound; the fix clears it.
func TestGoplsDiagnostics(t *testing.T) {
	need(t, "gopls")
	root, main := goModule(t)
	breakAndFix(t, root, main, "package main\n\nimport \"fmt\"\n\nfunc greet() string { return 42 }\n\nfunc main() {\n\tfmt.Println(greet())\n}\n",
		"cannot use 42", 5,
		"package main\n\nimport \"fmt\"\n\nfunc greet() string { return \"hello\" }\n\nfunc main() {\n\tfmt.Println(greet())\n}\n")
}

// breakAndFix asks a fresh manager for file's diagnostics (none: it is clean), writes broken
// and wants one error containing want on line, then writes fixed and wants none.
func breakAndFix(t *testing.T, root, file, broken, want string, line int, fixed string) {
	t.Helper()
	m := lsp.New(patient)
	defer func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}()
	ctx := context.Background()
	for _, step := range []struct {
		text string // "" : the file as it is
		want string
	}{{"", ""}, {broken, want}, {fixed, ""}} {
		if step.text != "" {
			write(t, file, step.text)
		}
		ds, err := m.Diagnostics(ctx, []string{root}, []string{file})
		if err != nil {
			t.Fatal(err)
		}
		errs := errorsOf(ds)
		switch {
		case step.want == "" && len(errs) > 0:
			t.Fatalf("errors where none were expected: %v", errs)
		case step.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], step.want) || ds[0].Line != line):
			t.Fatalf("after the break: %+v", ds)
		}
	}
}

// A server that hangs or crashes never stalls the caller past the wait: the answer is
// ErrUnavailable.
func TestBrokenServers(t *testing.T) {
	cases := []struct{ name, script string }{
		{"hangs", "cat >/dev/null"},
		{"crashes", "exit 3"},
		// Answers the handshake, then reads nothing: a large file's didOpen fills the pipe.
		{"stops reading", `printf 'Content-Length: 53\r\n\r\n%s' '{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}'; exec sleep 600`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, main := goModule(t)
			// Larger than a pipe's buffer, so that sending it needs a server that reads.
			write(t, main, "package main\n\n"+strings.Repeat("// a line of comment to make the file larger than a pipe holds\n", 8000)+"func main() {}\n")
			m := lsp.New(lsp.Config{StartWait: 2 * time.Second, Wait: time.Second,
				Commands: func() map[string][]string { return map[string][]string{"go": {"sh", "-c", c.script}} }})
			defer func() {
				if err := m.Close(); err != nil {
					t.Error(err)
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for range 2 {
				if _, err := m.Diagnostics(ctx, []string{root}, []string{main}); err == nil || !errorIs(err) {
					t.Fatalf("err = %v, want ErrUnavailable", err)
				}
			}
			if ctx.Err() != nil {
				t.Fatal("the calls waited past their bound")
			}
		})
	}
}
