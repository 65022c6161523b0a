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
)

// TestToolConnect: `cairn tool --connect` runs the call in the daemon serving the data dir and
// prints what the local `cairn tool` prints, for a search (twice: the second may meet the
// daemon's index) and an edit; a message without a call is a usage error there too, and
// without a daemon the command fails plainly.
func TestToolConnect(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	data := t.TempDir()
	d, err := server.Start(context.Background(), server.Config{DataDir: data, Version: "test",
		HandshakeFile: server.HandshakePath(data)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	ws, _ := toolDir(t)
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("a needle here\nnothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	search := "<search_files>\n<path>.</path>\n<regex>needle|func main</regex>\n</search_files>"
	local, localOut, localErr := runTool(t, ws, search)
	if local != 1 || !strings.Contains(localErr, "--yes") {
		t.Fatalf("local without --yes: exit %d\n%s%s", local, localOut, localErr)
	}
	_, want, _ := runTool(t, ws, search, "--yes")
	if !strings.Contains(want, "notes.txt") {
		t.Fatalf("local search found nothing:\n%s", want)
	}
	for i := range 2 {
		code, out, errOut := runTool(t, ws, search, "--yes", "--connect", "--data-dir", data)
		if code != 0 || out != want {
			t.Fatalf("connect #%d: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", i, code, out, want, errOut)
		}
	}
	code, out, errOut := runTool(t, ws, search, "--connect", "--data-dir", data)
	if code != 1 || out != localOut || !strings.Contains(errOut, "--yes") {
		t.Errorf("connect without --yes: exit %d\n%s%s", code, out, errOut)
	}
	edit := "<write_to_file>\n<path>made.txt</path>\n<content>\nmade\n</content>\n</write_to_file>"
	if code, out, errOut := runTool(t, ws, edit, "--yes", "--connect", "--data-dir", data); code != 0 {
		t.Fatalf("connect edit: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the daemon's edit: %q %v", b, err)
	}
	if code, _, errOut := runTool(t, ws, "just words", "--connect", "--data-dir", data); code != 2 || !strings.Contains(errOut, "no tool call") {
		t.Errorf("no call through the daemon: exit %d, %s", code, errOut)
	}
	var o, e bytes.Buffer
	if code := cli.Run(context.Background(), []string{"tool", "--connect", "--data-dir", t.TempDir(), "-C", ws},
		cli.IO{In: strings.NewReader(search), Out: &o, Err: &e}); code != 1 || !strings.Contains(e.String(), "--connect") {
		t.Errorf("no daemon: exit %d, %s", code, e.String())
	}
}
