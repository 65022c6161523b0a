package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/server"
	"github.com/cairnhq/cairn/server/cli"
)

// cairn status says when no daemon serves the data dir and how to keep one warm; with one, it
// names the daemon, its idle exit and each warm index, building or ready.
func TestStatus(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	status := func() string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), []string{"status", "--data-dir", dir}, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		return out.String()
	}
	if got := status(); !strings.Contains(got, "no daemon serves "+dir) || !strings.Contains(got, "--idle-exit 0") {
		t.Fatalf("without a daemon:\n%s", got)
	}

	s := config.Default()
	d, err := server.Start(context.Background(), server.Config{DataDir: dir, Version: "test", Settings: &s,
		HandshakeFile: server.HandshakePath(dir), IdleExit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	got := status()
	for _, want := range []string{"daemon: pid ", "cairn test", "exits 1m0s after its last client", "search indexes: none yet"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}

	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n\nfunc Handle() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	call := "<search_files>\n<path>.</path>\n<regex>Handle</regex>\n</search_files>"
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"tool", "--yes", "--connect", "--data-dir", dir, "-C", ws},
		cli.IO{In: strings.NewReader(call), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("tool: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	root, _ := filepath.EvalSymlinks(ws)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got = status()
		if strings.Contains(got, "search index: "+root+": ready, 1 files") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index of %s never showed ready:\n%s", root, got)
		}
	}
}
