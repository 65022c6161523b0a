package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing: .ci/run installs it, and CI must run this test")
		}
		t.Skip("node is not installed")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the ACP TypeScript SDK is not installed (npm ci installs it, package.json devDependencies): %v", err)
	}
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
