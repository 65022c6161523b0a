package hooks

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
)

// sandboxed returns a runner over root whose hooks run in the sandbox, as core/agent assembles
// it; the test is skipped where no sandbox can be set up, with the reason.
func sandboxed(t *testing.T, root string, timeout time.Duration) (*Runner, *Store) {
	t.Helper()
	sandboxtest.Require(t)
	r, s := newRunner(t, root, "", timeout)
	home, _ := os.UserHomeDir() // none: nothing of a home to mask
	r.o.Sandbox = &sandbox.Base{Roots: []string{root}, Home: home}
	return r, s
}

// A hook runs in the sandbox (docs/sandbox.md): it writes in the task's roots and its temp
// folder, the kernel stops a write anywhere else, its protected paths stay read-only, and it
// may still use the network.
func TestHookRunsInTheSandbox(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lis.Close() }()
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	t.Setenv("OUTSIDE", outside)
	t.Setenv("PORT", strings.TrimPrefix(lis.Addr().String(), "127.0.0.1:"))
	// Each check prints one word; the answer carries them all.
	script := `#!/bin/sh
try() { if "$@" 2>/dev/null; then printf ' %s:yes' "$name"; else printf ' %s:no' "$name"; fi; }
out=$( (
name=root try touch inside.txt
name=tmp try touch "$TMPDIR/scratch"
name=outside try touch "$OUTSIDE/outside.txt"
name=protected try touch .clinerules/hooks/new
name=network try python3 -c "import socket,os; socket.create_connection(('127.0.0.1', int(os.environ['PORT'])), 5)"
) )
printf '{"contextModification": "%s"}' "$out"
`
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, script)
	r, s := sandboxed(t, root, 0)
	trustAll(t, s, []string{root}, "")
	got := r.Fire(context.Background(), Event{Kind: PreToolUse, Data: PreToolData{ToolName: "read_file"}})
	if len(got.Notes) != 0 {
		t.Fatalf("notes: %+v", got.Notes)
	}
	want := []string{"root:yes", "tmp:yes", "outside:no", "protected:no"}
	if python3() {
		want = append(want, "network:yes")
	}
	for _, w := range want {
		if !strings.Contains(got.ContextModification, w) {
			t.Errorf("the hook said %q, want %s", got.ContextModification, w)
		}
	}
	if !exists(filepath.Join(root, "inside.txt")) || exists(filepath.Join(outside, "outside.txt")) {
		t.Errorf("inside written %v, outside written %v", exists(filepath.Join(root, "inside.txt")), exists(filepath.Join(outside, "outside.txt")))
	}
}

// Cancelling the task stops a sandboxed hook and what it started, as it does a plain one.
func TestCancelStopsASandboxedHook(t *testing.T) {
	root := t.TempDir()
	started, late := filepath.Join(root, "started"), filepath.Join(root, "late")
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse,
		"#!/bin/sh\n(sleep 1; touch '"+late+"') &\ntouch '"+started+"'\nwait\n")
	r, s := sandboxed(t, root, time.Hour)
	trustAll(t, s, []string{root}, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- r.Fire(ctx, Event{Kind: PreToolUse}) }()
	waitFor(t, started)
	cancel()
	if got := <-done; got.Cancel || len(got.Notes) != 0 {
		t.Fatalf("got %+v: a cancelled hook says nothing", got)
	}
	time.Sleep(2 * time.Second)
	if exists(late) {
		t.Error("the hook's child ran on after the cancel")
	}
}

func python3() bool {
	_, err := exec.LookPath("python3")
	return err == nil
}
