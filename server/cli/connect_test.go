package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/server"
	"github.com/cairnhq/cairn/server/cli"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestRunConnect: `cairn run --connect` uses the daemon already serving the data dir (found
// through its handshake file, with that daemon's settings), closes its task there when it ends
// (the daemon holds nothing for a finished run), and fails plainly when none runs.
func TestRunConnect(t *testing.T) {
	tests := []struct {
		name     string
		daemon   bool
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "a daemon serves the data dir", daemon: true, wantCode: 0, wantOut: "All done."},
		{name: "no daemon", daemon: false, wantCode: 1, wantErr: "no running daemon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"<task>\nsay done\n</task>"}}},
			}})
			dir := t.TempDir()
			var d *server.Daemon
			if tt.daemon {
				s := config.Default()
				s.API.BaseURL, s.API.APIKey, s.API.Model = srv.URL(), "k", "m"
				var err error
				d, err = server.Start(context.Background(), server.Config{DataDir: dir, Version: "test",
					Settings: &s, HandshakeFile: server.HandshakePath(dir)})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(d.Stop)
			}
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"run", "--connect", "--data-dir", dir, "-C", t.TempDir(), "say done"},
				cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != tt.wantCode || !strings.Contains(out.String(), tt.wantOut) || !strings.Contains(errb.String(), tt.wantErr) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out.String(), errb.String())
			}
			if err := srv.Err(); err != nil {
				t.Error(err)
			}
			if d != nil {
				if open := d.Tasks().Tasks(); len(open) != 0 {
					t.Errorf("the daemon still holds %d task(s) after the run ended", len(open))
				}
			}
		})
	}
}

// TestRunConnectFlagsGovernTheTask: on a fresh daemon with no model endpoint, `cairn run
// --connect` with its own endpoint, key, model and approvals completes: the flags become the
// task's own settings (its edit runs without asking under --yolo), and the daemon's settings
// stay as they were. A bad flag is refused with exit 2, never ignored.
func TestRunConnectFlagsGovernTheTask(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>out.txt</path>\n<content>\nhello\n</content>\n</write_to_file>",
			Expect: &llmtest.Expect{Model: "own-model"}},
		{Text: completion, Expect: &llmtest.Expect{Model: "own-model"}},
	}})
	dir := t.TempDir()
	// A fresh data dir: no endpoint, so only the run's flags can make the task work.
	d, err := server.Start(context.Background(), server.Config{DataDir: dir, Version: "test",
		HandshakeFile: server.HandshakePath(dir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	ws := t.TempDir()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"run", "--connect", "--data-dir", dir, "-C", ws,
		"--base-url", srv.URL(), "--api-key", "sk-run-0123456789", "--model", "own-model", "--yolo",
		"--max-requests", "5", "--tool-format", "xml", "write it"},
		cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 || !strings.Contains(out.String(), "All done.") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("the edit under the run's --yolo: %q %v", b, err)
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "settings.json")); err == nil &&
		(strings.Contains(string(b), "own-model") || strings.Contains(string(b), "sk-run") || strings.Contains(string(b), srv.URL())) {
		t.Errorf("the run's flags reached the shared settings:\n%s", b)
	}
	got, err := config.Load(filepath.Join(dir, "settings.json"))
	if err != nil || got.API.Model != "" || got.AutoApprove.YOLO {
		t.Errorf("shared settings after the run: %+v %v", got.API, err)
	}
	out.Reset()
	errb.Reset()
	code = cli.Run(context.Background(), []string{"run", "--connect", "--data-dir", dir, "-C", ws, "--tool-format", "json", "x"},
		cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 2 || !strings.Contains(errb.String(), "--tool-format") {
		t.Errorf("a bad flag with --connect: exit %d, stderr %q", code, errb.String())
	}
}
