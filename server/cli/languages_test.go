package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// `cairn run` has no editor: a Go edit that breaks the build gets gopls's error in its result
// (README, "Language servers"), and the fix's result names none.
func TestRunEditGetsLanguageServerErrors(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("gopls is not installed: .ci/run installs it (make deps)")
		}
		t.Skip("gopls is not installed (make deps installs it)")
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := func(body string) string {
		return "<write_to_file>\n<path>main.go</path>\n<content>\npackage main\n\nfunc answer() int { " + body + " }\n\nfunc main() { _ = answer() }\n</content>\n</write_to_file>"
	}
	code, out, errs, _ := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: file(`return "forty-two"`)},
		{Text: file("return 42"), Expect: &llmtest.Expect{LastUserContains: []string{"- Line 3 (compiler): cannot use \"forty-two\""}}},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'main.go'] Result:"},
			LastUserNotContains: []string{"errors", "not known"}}},
	}}, "-C", ws, "--auto-approve", "read,edit", "write main.go")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "All done.") {
		t.Errorf("stdout:\n%s", out)
	}
}
