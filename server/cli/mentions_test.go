package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/server/cli"
)

// `cairn debug mentions` (docs/cli.md, "cairn debug"): stdin is user text; the output names the
// mentions as written, the slash command, and the text expanded against DIR with the direct host.
func TestDebugMentions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dir := t.TempDir()
	for name, body := range map[string]string{
		"docs/my notes.md":                 "milk\n",
		".cairnrules/workflows/release.md": "Tag and push.",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, in string
		mentions []string
		slash    any // nil or the command
		contains []string
	}{
		{"mentions and workflow", `/release.md read @/docs/my\ notes.md, @problems and mail bob@example.com`,
			[]string{`@/docs/my\ notes.md`, "@problems"}, "/release.md", []string{
				"<explicit_instructions type=\"release.md\">\nTag and push.\n</explicit_instructions>",
				"read 'docs/my notes.md' (see below for file content), Workspace Problems (see below for diagnostics) and mail bob@example.com",
				"<file_content path=\"docs/my notes.md\">\nmilk\n</file_content>",
				"<workspace_diagnostics>\nDiagnostics are not available: no editor is connected to report problems.\n</workspace_diagnostics>",
			}},
		{"terminal without a terminal", "@terminal", []string{"@terminal"}, nil,
			[]string{"<terminal_output>\nTerminal output is not available"}},
		{"nothing", "/NewTask plain text", []string{}, nil, []string{"/NewTask plain text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"debug", "mentions", "-C", dir},
				cli.IO{In: strings.NewReader(tt.in), Out: &out, Err: &errb})
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var got map[string]any
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out.String())
			}
			ms, _ := json.Marshal(got["mentions"])
			want, _ := json.Marshal(tt.mentions)
			if string(ms) != string(want) {
				t.Errorf("mentions = %s, want %s", ms, want)
			}
			if slash, ok := got["slash"]; !ok || slash != tt.slash {
				t.Errorf("slash = %v (present %v), want %v", slash, ok, tt.slash)
			}
			exp, _ := got["expanded"].(string)
			for _, c := range tt.contains {
				if !strings.Contains(exp, c) {
					t.Errorf("expanded lacks %q:\n%s", c, exp)
				}
			}
		})
	}
}
