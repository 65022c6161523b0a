package cli_test

import (
	"bytes"
	"context"
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
