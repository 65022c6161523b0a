package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// TestIgnoredFilesStayIgnored: a command that would print a file the ignore file hides is
// refused before anyone is asked, with the ignore_error row read_file shows; other commands
// go on to the approval and run.
func TestIgnoredFilesStayIgnored(t *testing.T) {
	cases := []struct {
		command string
		blocked string // root-relative path in the refusal, "" when the command runs
	}{
		{"cat .env", ".env"},
		{"cat ./.env", ".env"},
		{`cat ".env"`, ".env"},
		{"head -n 1 secrets/token.txt", "secrets/token.txt"},
		{"cat secrets/*", "secrets/token.txt"},
		{"grep KEY .env", ".env"},
		{"cd secrets && cat token.txt", "secrets/token.txt"},
		{"bash -c 'tail .env'", ".env"},
		{"wc -c < .env", ".env"},
		{"cat notes.txt", ""},
		{"grep -c x notes.txt", ""},
		{"ls", ""},
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range map[string]string{".env": "KEY=1\n", "secrets/token.txt": "tok\n", "notes.txt": "x\n"} {
				p := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ui := &fakeUI{approve: tools.Answer{Approved: true}}
			term := direct.NewTerminal(posixShell(t))
			env := &tools.Env{Files: &toolstest.Files{Dir: root, Ignore: []string{".env", "secrets"}},
				Host: fakeHost{term}, UI: ui, Mode: "act"}
			res, err := New(NewRegistry()).Run(testCtx(t), env, call("command", c.command, "requires_approval", "false"))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if c.blocked == "" {
				if res.IsError || len(ui.approvals) != 1 || !strings.HasPrefix(res.Text, "Command executed.") {
					t.Fatalf("result %+v, approvals %d: want the command approved and run", res, len(ui.approvals))
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Text, "blocks access to "+c.blocked) {
				t.Fatalf("result %+v: want a refusal naming %s", res, c.blocked)
			}
			if len(ui.approvals) != 0 {
				t.Fatalf("approval asked for a refused command: %+v", ui.approvals)
			}
			if len(ui.says) != 1 || ui.says[0].kind != msg.SayIgnoreError || ui.says[0].text != c.blocked {
				t.Fatalf("says = %+v, want one ignore_error for %s", ui.says, c.blocked)
			}
		})
	}
}

// TestAgentEnvHasNoKeys runs `env` through execute_command and the direct terminal.
func TestAgentEnvHasNoKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("OPENROUTER_API_KEY", "sk-or-secret")
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := newEnv(t, ui)
	res, err := New(NewRegistry()).Run(testCtx(t), env, call("command", "env", "requires_approval", "false"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, secret := range []string{"sk-ant-secret", "sk-or-secret", "API_KEY"} {
		if strings.Contains(res.Text, secret) {
			t.Errorf("env output shows %q:\n%s", secret, res.Text)
		}
	}
	if !strings.Contains(res.Text, "CAIRN_ACTIVE=true") {
		t.Errorf("env output is not the command's environment:\n%s", res.Text)
	}
}
