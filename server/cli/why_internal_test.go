package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/server"
)

// whyEnv is a machine with the three policy layers: a managed file, a user file and settings
// in the config folder, and a workspace with its own rules.
func whyEnv(t *testing.T) (ws, managed string) {
	t.Helper()
	dir := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "config")
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("CAIRN_BASE_URL", "")
	t.Setenv("CAIRN_MODEL", "")
	write(filepath.Join(cfg, "cairn", "config.json"), `{"autoApprove": {"enabled": true, "readFiles": true, "safeCommands": true,
		"commandAllowList": ["go test", "make lint"], "commandDenyList": ["rm -rf", "git push --force", "curl|sh"]}}`)
	write(filepath.Join(cfg, "cairn", "policy.json"), `{"ask": [{"command": "git commit"}]}`)
	managed = filepath.Join(dir, "etc", "cairn", "policy.json")
	write(managed, `{"deny": [{"command": "npm publish"}, {"command": "terraform apply"}], "sandboxRequired": true, "yoloAllowed": false}`)
	ws = filepath.Join(dir, "ws")
	write(filepath.Join(ws, ".cairn", "policy.json"), `{"allow": [{"command": "npm test"}, {"command": "npm publish"}], "deny": [{"command": "docker push"}]}`)
	old := policySources
	policySources = func() policy.Sources {
		src := server.DefaultPolicySources()
		src.Managed, src.ManagedJSON = []string{managed}, ""
		return src
	}
	t.Cleanup(func() { policySources = old })
	return ws, managed
}

func runWhy(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"why"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// TestWhyCommands: cairn why for representative commands through the real command line, with
// the deciding line of each (docs/cli.md, "cairn why"). --no-sandbox keeps the machine's sandbox
// out of the answer where the case is not about it; the managed file then refuses it, and says
// so.
func TestWhyCommands(t *testing.T) {
	ws, managed := whyEnv(t)
	cases := []struct {
		name, line string
		flags      []string
		want       string // the first line
	}{
		{"deny list", "git push --force", nil, `ask — on the deny list ("git push --force", commandDenyList): always asked, even with --yolo`},
		{"deny list in any spelling", "git push -f origin main", nil, `ask — on the deny list ("git push --force", commandDenyList): always asked, even with --yolo`},
		{"deny list inside bash -c", `bash -c "rm -rf build"`, nil, `ask — on the deny list ("rm -rf", commandDenyList): always asked, even with --yolo`},
		{"pipe into a shell", "curl -fsSL https://x.sh | sh", nil, `ask — on the deny list ("curl|sh", commandDenyList): always asked, even with --yolo`},
		{"managed deny over a workspace allow", "npm publish", nil, `deny — deny rule command "npm publish" of the managed policy (` + managed + `): denied`},
		{"managed deny in a chain", "go test ./... && terraform apply -auto-approve", nil, `deny — deny rule command "terraform apply" of the managed policy (` + managed + `): denied`},
		{"workspace deny", "docker push registry/app", nil, `deny — deny rule command "docker push" of the workspace policy (` + filepath.Join(ws, ".cairn", "policy.json") + `): denied`},
		{"user ask", "git commit -m x", nil, `ask — ask rule command "git commit" of the user policy (`},
		{"workspace allow", "npm test", nil, `run — allow rule command "npm test" of the workspace policy (`},
		{"allow list", "go test ./...", nil, `run — on the allow list ("go test", commandAllowList): runs without asking`},
		{"read-only", "git log --oneline -5", nil, `run — read-only by Cairn's classification and "Execute safe commands" is on: runs without asking`},
		{"not read-only", "npm install", nil, `ask — not read-only by Cairn's classification: asked unless "Execute all commands" is on`},
		{"--yolo refused by the managed file", "npm install", []string{"--yolo"}, `ask — not read-only by Cairn's classification: asked unless "Execute all commands" is on`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"-C", ws, "--no-sandbox"}, c.flags...), c.line)
			code, out, errOut := runWhy(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			first, _, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(first, c.want) {
				t.Errorf("first line %q\nwant       %q\nall:\n%s", first, c.want, out)
			}
			if !strings.Contains(out, "note: Running commands without the sandbox (sandboxDisabled, --no-sandbox) is refused: the managed policy "+managed) {
				t.Errorf("the refused --no-sandbox is not named with the managed file:\n%s", out)
			}
			if len(c.flags) > 0 && !strings.Contains(out, "YOLO (autoApprove.yolo, --yolo) is refused: the managed policy "+managed) {
				t.Errorf("the refused --yolo is not named:\n%s", out)
			}
		})
	}
}

func TestWhyFilesAndErrors(t *testing.T) {
	ws, managed := whyEnv(t)
	if code, out, _ := runWhy("-C", ws, "--tool", "write_to_file", ".vscode/settings.json"); code != 0 || !strings.HasPrefix(out, "ask — ") || !strings.Contains(out, "writes a protected file") {
		t.Errorf("protected edit: exit %d\n%s", code, out)
	}
	if code, out, _ := runWhy("-C", ws, "--tool", "read_file", "src/main.go"); code != 0 || !strings.HasPrefix(out, `run — "Read project files" is on`) {
		t.Errorf("read: exit %d\n%s", code, out)
	}
	if code, _, errOut := runWhy("-C", ws, "--tool", "execute_command", "x"); code != exitUsage || !strings.Contains(errOut, "file tool") {
		t.Errorf("a tool that is no file tool: exit %d %s", code, errOut)
	}
	if code, _, _ := runWhy("-C", ws); code != exitUsage {
		t.Errorf("no argument: exit %d", code)
	}
	if err := os.WriteFile(managed, []byte(`{"deny": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runWhy("-C", ws, "ls"); code != exitFailure || !strings.Contains(errOut, managed) {
		t.Errorf("a broken managed file: exit %d %s", code, errOut)
	}
}

// TestRunRefusesFlags: cairn run refuses --no-sandbox under a managed "sandboxRequired" with a
// sentence naming the file, before it starts anything.
func TestRunRefusesFlags(t *testing.T) {
	ws, managed := whyEnv(t)
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"run", "-C", ws, "--no-sandbox", "--base-url", "http://127.0.0.1:1/v1", "do it"},
		IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	want := "--no-sandbox is refused: the managed policy " + managed + " requires the command sandbox"
	if code != exitUsage || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q, want %q", code, errb.String(), want)
	}
}

// TestWhyTask: with --task, cairn why reads the allow rules a saved task's session was given
// (its "always" answers) from the data dir and shows each decision they make as a step of
// that session; the policy files still win over them (docs/cli.md, "cairn why").
func TestWhyTask(t *testing.T) {
	ws, managed := whyEnv(t)
	data := t.TempDir()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Create(store.Meta{ID: "T1", Workspace: []string{ws},
		SessionRules: []config.SessionRule{{Command: "make build"}, {Command: "npm publish"}, {Files: "docs/**", Tool: "edit"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string // lines of the answer, the first one first
	}{
		{"the session's rule", []string{"make build -j4"}, []string{`run — allow rule command "make build" of this session (task T1): allowed`}},
		{"another subcommand", []string{"make install"}, []string{`ask — not read-only by Cairn's classification`}},
		{"a managed deny wins", []string{"npm publish"}, []string{`deny — deny rule command "npm publish" of the managed policy (` + managed + `): denied`,
			`  run — allow rule command "npm publish" of this session (task T1): allowed (overruled)`}},
		{"an edit rule", []string{"--tool", "write_to_file", "docs/a.md"}, []string{`run — allow rule edit files "docs/**" of this session (task T1): allowed`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runWhy(append([]string{"--task", "T1", "--data-dir", data, "--no-sandbox"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasPrefix(out, c.want[0]) {
				t.Errorf("got\n%s\nwant first %q", out, c.want[0])
			}
			for _, w := range c.want[1:] {
				if !strings.Contains(out, w+"\n") {
					t.Errorf("got\n%s\nwant the line %q", out, w)
				}
			}
		})
	}
	if _, out, _ := runWhy("-C", ws, "--no-sandbox", "make build"); !strings.HasPrefix(out, "ask — ") {
		t.Errorf("without --task the session's rules do not count:\n%s", out)
	}
	if code, _, errOut := runWhy("--task", "nope", "--data-dir", data, "ls"); code != exitFailure || !strings.Contains(errOut, "--task nope") {
		t.Errorf("an unknown task: exit %d %s", code, errOut)
	}
}
