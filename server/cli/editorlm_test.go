package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/vscodelm"
	"github.com/cairnhq/cairn/server/cli"
)

// With the editor's own models chosen in the config file, `cairn run` and `cairn acp` both say
// the one sentence that this provider needs the editor, and start nothing.
func TestEditorModelsNeedTheEditorOnTheCommandLine(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	for _, k := range []string{"CAIRN_API_KEY", "OPENAI_API_KEY", "CAIRN_BASE_URL", "CAIRN_MODEL"} {
		t.Setenv(k, "")
	}
	if err := os.MkdirAll(filepath.Join(home, "cairn"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "cairn", "config.json"), []byte(`{"api": {"preset": "vscode-lm", "model": "gpt-4o"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "-C", t.TempDir(), "--data-dir", t.TempDir(), "write a greeting"},
		{"acp", "--data-dir", t.TempDir()},
	} {
		t.Run(args[0], func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != 2 {
				t.Errorf("exit %d, want 2 (usage)", code)
			}
			if !strings.Contains(errb.String(), vscodelm.ErrNeedsEditor.Error()) {
				t.Errorf("stderr does not say the provider needs the editor:\n%s", errb.String())
			}
		})
	}
}
