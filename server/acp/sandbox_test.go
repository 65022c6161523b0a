package acp_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
	"github.com/cairnhq/cairn/core/tools"
)

// A command with a sandbox policy runs in the client's terminal as Cairn's launcher
// (docs/sandbox.md): terminal/create's command is the launcher and its args end with the
// shell running the user's command; the client runs it for real, the command's writes outside
// its roots are stopped, and its output and exit code come back.
func TestSandboxedCommandInTheClientTerminal(t *testing.T) {
	sandboxtest.Require(t)
	ed := newBufferEditor("allow_once", map[string]string{})
	h := startBuffers(t, llmtest.Script{}, ed)
	host, ok := h.e.Daemon.Hosts().Get("acp-" + string(h.sid))
	if !ok {
		t.Fatal("the session's host is not connected")
	}
	ws, outside := h.e.Workspace, t.TempDir()
	command := "echo from-the-sandbox > in.txt; cat in.txt; touch '" + outside + "/out.txt'; exit 4"
	p := sandbox.Base{Roots: []string{ws}, Temp: filepath.Join(t.TempDir(), "tmp")}.Policy(sandbox.Workspace, false, "test")
	ctx := context.Background()
	proc, err := host.Terminal().Run(ctx, tools.CommandRequest{Command: command, Cwd: ws, Sandbox: &p})
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(proc.Output())
	if err != nil {
		t.Fatal(err)
	}
	code, err := proc.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != 4 || !strings.Contains(string(out), "from-the-sandbox") || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("exit %d, output %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the command wrote outside its roots")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ed.fmu.Lock()
	created := append([]string(nil), ed.created...)
	ed.fmu.Unlock()
	if len(created) != 1 || !strings.HasPrefix(created[0], exe+" ") || !strings.HasSuffix(created[0], " -c "+command) {
		t.Errorf("terminals created = %q, want the launcher %s running the command", created, exe)
	}
}
