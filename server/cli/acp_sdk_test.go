package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// The end-to-end test of `cairn acp` with the official ACP TypeScript SDK as the editor
// (e2e/acp/editor.mjs): real `cairn acp` processes (this test binary started as cairn) on one
// data dir, a scripted model. The editor reads through its unsaved buffer, gets the edit
// through fs/write_text_file, cancels a prompt, is refused the session from a second process
// while the first holds it, and loads it in a third process after the first ended. Here the
// model's side is checked: what each request saw. Skipped only when node is missing.
func TestACPWithTheTypeScriptSDK(t *testing.T) {
	node, root := sdkEditor(t)
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<read_file>\n<path>notes.md</path>\n</read_file>"},
		{Text: "Changing it.\n<replace_in_file>\n<path>notes.md</path>\n<diff>\n------- SEARCH\nunsaved line\n=======\nedited line\n+++++++ REPLACE\n</diff>\n</replace_in_file>",
			Expect: &llmtest.Expect{LastUserContains: []string{"unsaved line"}, LastUserNotContains: []string{"disk line"}}},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[replace_in_file for 'notes.md'] Result:"},
			LastUserNotContains: []string{"Error"}}},
		{Text: strings.Repeat("slowly ", 400), ChunkSize: 7, Delay: llmtest.Duration(50 * time.Millisecond),
			Expect: &llmtest.Expect{LastUserContains: []string{"talk slowly"}}},
		{Text: "<attempt_completion>\n<result>Finished after the load.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{LastUserContains: []string{"finish up"}}},
	}})
	ws, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("# Notes\ndisk line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, err := json.Marshal([]string{os.Args[0], "acp", "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m"})
	if err != nil {
		t.Fatal(err)
	}
	run := exec.Command(node, filepath.Join(root, "e2e", "acp", "editor.mjs"))
	run.Env = append(os.Environ(), "CAIRN_CLI_MAIN=1", "CAIRN_ACP_CMD="+string(cmd), "CAIRN_ACP_WORKSPACE="+ws,
		"XDG_CONFIG_HOME="+t.TempDir(), "CAIRN_API_KEY=", "OPENAI_API_KEY=")
	out, err := run.CombinedOutput()
	t.Logf("editor:\n%s", out)
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Fatalf("the editor failed: %v", err)
	}
	if !strings.Contains(string(out), "acp e2e: all checks passed") {
		t.Fatal("the editor did not finish its checks")
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "# Notes\ndisk line\n" {
		t.Errorf("notes.md on disk = %q, %v (the edit belongs to the editor's buffer)", b, err)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
}

// The ACP TypeScript SDK as Zed drives `cairn acp` (e2e/acp/zed.mjs): a real terminal and two
// roots. A command's tool call embeds the client's terminal, a file of the second root is
// located at its absolute path, "always" on `npm test` lets the next `npm test` through and
// not `npm publish`, and `python3 -c` lines are offered no "always" and asked each time. Here
// the model's side is checked: what each command gave it.
func TestACPAsZedWithTheTypeScriptSDK(t *testing.T) {
	node, root := sdkEditor(t)
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<read_file>\n<path>back:api/server.py</path>\n</read_file>"},
		{Text: runCommand("npm test", true), Expect: &llmtest.Expect{LastUserContains: []string{"print('server')"}}},
		{Text: runCommand("npm test", true), Expect: &llmtest.Expect{LastUserContains: []string{"tests-pass"}}},
		{Text: runCommand("npm publish --dry-run", true), Expect: &llmtest.Expect{LastUserContains: []string{"tests-pass"}}},
		{Text: runCommand(`python3 -c "print(40+1)"`, true), Expect: &llmtest.Expect{LastUserNotContains: []string{"tests-pass"}}},
		{Text: runCommand(`python3 -c "print(40+2)"`, true), Expect: &llmtest.Expect{LastUserContains: []string{"41"}}},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"42"}}},
	}})
	base := t.TempDir()
	front, back, data := filepath.Join(base, "front"), filepath.Join(base, "back"), t.TempDir()
	for p, content := range map[string]string{
		filepath.Join(front, "package.json"):    `{"name": "front", "version": "1.0.0", "scripts": {"test": "echo tests-pass"}}` + "\n",
		filepath.Join(back, "api", "server.py"): "print('server')\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd, err := json.Marshal([]string{os.Args[0], "acp", "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m"})
	if err != nil {
		t.Fatal(err)
	}
	run := exec.Command(node, filepath.Join(root, "e2e", "acp", "zed.mjs"))
	run.Env = append(os.Environ(), "CAIRN_CLI_MAIN=1", "CAIRN_ACP_CMD="+string(cmd), "CAIRN_ACP_WORKSPACE="+front,
		"CAIRN_ACP_SECOND_ROOT="+back, "XDG_CONFIG_HOME="+t.TempDir(), "CAIRN_API_KEY=", "OPENAI_API_KEY=")
	out, err := run.CombinedOutput()
	t.Logf("editor:\n%s", out)
	if err != nil {
		t.Fatalf("the editor failed: %v", err)
	}
	if !strings.Contains(string(out), "acp zed e2e: all checks passed") {
		t.Fatal("the editor did not finish its checks")
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
}

// runCommand is the model's execute_command of line.
func runCommand(line string, approval bool) string {
	return "<execute_command>\n<command>" + line + "</command>\n<requires_approval>" + strconv.FormatBool(approval) +
		"</requires_approval>\n</execute_command>"
}

// sdkEditor finds node and the repository root with the ACP TypeScript SDK installed; the test
// is skipped only when node is missing, and never in CI.
func sdkEditor(t *testing.T) (node, root string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing: .ci/run installs it, and CI must run this test")
		}
		t.Skip("node is not installed")
	}
	root, err = filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the ACP TypeScript SDK is not installed (npm ci installs it, package.json devDependencies): %v", err)
	}
	return node, root
}
