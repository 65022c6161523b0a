package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/server"
	"github.com/cairnhq/cairn/server/cli"
)

// firstLine is the first line of stderr: the run's sandbox line (docs/cli.md, "The first line").
func firstLine(stderr string) string {
	l, _, _ := strings.Cut(stderr, "\n")
	return l
}

// onLine is the first line of a run whose sandbox is on, the way Probe finds this machine.
func onLine(network string) string {
	st := sandbox.Probe()
	if !st.Available {
		return "sandbox: unavailable here: " + st.Reason + "; every command will ask (turn the sandbox off with --no-sandbox to auto-approve)"
	}
	return "sandbox: on (" + st.Mechanism + "); network " + network + " for auto-approved commands"
}

// TestRunFirstLine: `cairn run` and `cairn resume` say first how the task's commands run: the
// sandbox on and the network for auto-approved commands, or off and by what (--no-sandbox, the
// sandboxDisabled setting), for the run's own daemon and for a task of a shared one (--connect),
// whose flags change that task only. --json keeps the line off stdout.
func TestRunFirstLine(t *testing.T) {
	off := "sandbox: off (--no-sandbox): commands run without the kernel's protection"
	offBySetting := "sandbox: off (sandboxDisabled setting): commands run without the kernel's protection"
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"defaults", "", nil, onLine("off")},
		{"--network", "", []string{"--network"}, onLine("on")},
		{"--no-sandbox", "", []string{"--no-sandbox"}, off},
		{"the setting", `{"sandboxDisabled": true}`, nil, offBySetting},
		{"--json", "", []string{"--json"}, onLine("off")},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
			cfg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", cfg)
			t.Setenv("CAIRN_API_KEY", "")
			t.Setenv("OPENAI_API_KEY", "")
			if c.file != "" {
				if err := os.MkdirAll(filepath.Join(cfg, "cairn"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cfg, "cairn", "config.json"), []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			data := t.TempDir()
			var out, errb bytes.Buffer
			args := append([]string{"run", "-C", t.TempDir(), "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m"}, c.args...)
			code := cli.Run(context.Background(), append(args, "say done"), cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			if got := firstLine(errb.String()); got != c.want {
				t.Errorf("first line\n got %q\nwant %q", got, c.want)
			}
			if strings.Contains(out.String(), "sandbox: ") {
				t.Errorf("the sandbox line reached stdout:\n%s", out.String())
			}
		})
	}
}

// TestResumeFirstLine: `cairn resume` says it too.
func TestResumeFirstLine(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	ids := seedTasks(t, dataDir, ws, "Finish the report")
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	code, out, errs := cairn(t, "resume", "--data-dir", dataDir, "--base-url", srv.URL(), "--api-key", "k", "--model", "m", "--no-sandbox", ids[0])
	if want := "sandbox: off (--no-sandbox): commands run without the kernel's protection"; code != 0 || firstLine(errs) != want {
		t.Errorf("exit %d, first line %q, want %q\nstdout:\n%s\nstderr:\n%s", code, firstLine(errs), want, out, errs)
	}
}

// TestRunConnectFirstLine: with --connect the line is the task's: the daemon's settings, and
// this run's --no-sandbox or --network on top for its task alone.
func TestRunConnectFirstLine(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, c := range []struct {
		name      string
		daemonOff bool
		args      []string
		want      string
	}{
		{"the daemon's settings", false, nil, onLine("off")},
		{"--network", false, []string{"--network"}, onLine("on")},
		{"--no-sandbox", false, []string{"--no-sandbox"}, "sandbox: off (--no-sandbox): commands run without the kernel's protection"},
		{"the daemon's setting off", true, nil, "sandbox: off (sandboxDisabled setting): commands run without the kernel's protection"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}, {Text: completion}}})
			dir := t.TempDir()
			s := config.Default()
			s.API.BaseURL, s.API.APIKey, s.API.Model = srv.URL(), "k", "m"
			s.SandboxOff = c.daemonOff
			d, err := server.Start(context.Background(), server.Config{DataDir: dir, Version: "test",
				Settings: &s, HandshakeFile: server.HandshakePath(dir)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(d.Stop)
			var out, errb bytes.Buffer
			args := append([]string{"run", "--connect", "--data-dir", dir, "-C", t.TempDir()}, c.args...)
			code := cli.Run(context.Background(), append(args, "say done"), cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			if got := firstLine(errb.String()); got != c.want {
				t.Errorf("first line\n got %q\nwant %q", got, c.want)
			}
			if len(c.args) == 0 {
				return
			}
			// The flags were the task's own: the next run has the daemon's settings again.
			out.Reset()
			errb.Reset()
			code = cli.Run(context.Background(), []string{"run", "--connect", "--data-dir", dir, "-C", t.TempDir(), "say done"},
				cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if got := firstLine(errb.String()); code != 0 || got != onLine("off") {
				t.Errorf("the next run without flags (exit %d): first line %q, want %q", code, got, onLine("off"))
			}
		})
	}
}
