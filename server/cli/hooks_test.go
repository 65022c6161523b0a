package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/server/cli"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// blockRm is a PreToolUse hook that refuses commands starting with rm.
const blockRm = `#!/bin/sh
input=$(cat)
case "$input" in
  *'"command":"rm '*) echo '{"cancel": true, "errorMessage": "No rm in this project."}';;
  *) echo '{"cancel": false}';;
esac
`

// runWithHooks runs `cairn run` in a workspace holding the given hooks, with a private home
// (no global hooks) and data dir.
func runWithHooks(t *testing.T, hooks map[string]string, script llmtest.Script, args ...string) (code int, stdout, stderr, ws string) {
	t.Helper()
	srv := llmtest.New(t, script)
	ws = t.TempDir()
	dir := filepath.Join(ws, ".clinerules", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range hooks {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	var out, errb bytes.Buffer
	full := append([]string{"run", "-C", ws, "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--api-key", "k", "--model", "m"}, args...)
	code = cli.Run(context.Background(), full, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
	return code, out.String(), errb.String(), ws
}

// TestRunHooksBlocksRm: with --hooks, the workspace's PreToolUse hook is trusted at the start
// and blocks `rm -rf x`; the folder stays and the model reads the hook's message.
func TestRunHooksBlocksRm(t *testing.T) {
	code, out, errs, _ := runWithHooks(t, map[string]string{"PreToolUse": blockRm}, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Removing it.\n<execute_command>\n<command>rm -rf x</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[execute_command for 'rm -rf x'] Result:\nNo rm in this project."}}},
	}}, "--hooks", "--auto-approve", "command", "remove x")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"hooks: trusted as they are now: .clinerules/hooks/PreToolUse\n",
		"hook: A PreToolUse hook blocked execute_command; it did not run. No rm in this project.\n"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(out, "$ rm -rf x") {
		t.Errorf("the command ran:\n%s", out)
	}
}

// TestRunHooksTrustIsForThatRun: a second run on the same data dir without --hooks does not
// run the hook the first run trusted.
func TestRunHooksTrustIsForThatRun(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}, {Text: completion}}})
	ws, data := t.TempDir(), t.TempDir()
	// The marker is in the workspace: a hook runs in the sandbox, where the task's roots are
	// what it may write (docs/sandbox.md).
	marker := filepath.Join(ws, "ran")
	dir := filepath.Join(ws, ".clinerules", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "TaskStart"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := func(args ...string) string {
		var out, errb bytes.Buffer
		full := append([]string{"run", "-C", ws, "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m"}, args...)
		if code := cli.Run(context.Background(), full, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return errb.String()
	}
	run("--hooks", "first")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the hook trusted with --hooks did not run: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	errs := run("second")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the trust of the --hooks run outlived it")
	}
	if !strings.Contains(errs, "hooks are not enabled for this workspace") {
		t.Errorf("stderr: %s", errs)
	}
}

// TestRunWithoutHooksSaysOnce: without --hooks (nothing trusted in this data dir) a hook
// does not run, and the run says so once, not at every event.
func TestRunWithoutHooksSaysOnce(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	code, out, errs, _ := runWithHooks(t, map[string]string{"PostToolUse": "#!/bin/sh\ntouch " + marker + "\n"}, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<list_files>\n<path>.</path>\n</list_files>"},
		{Text: "<list_files>\n<path>.clinerules</path>\n</list_files>"},
		{Text: completion},
	}}, "--auto-approve", "read", "look around")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	const skip = "hook: Hook .clinerules/hooks/PostToolUse was skipped: hooks are not enabled for this workspace."
	if n := strings.Count(errs, skip); n != 1 {
		t.Errorf("the skip was told %d times, want once:\n%s", n, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an untrusted hook ran")
	}
}
