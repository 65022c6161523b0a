package hostbridge

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
	"github.com/cairnhq/cairn/core/tools"
)

// shellTerminal serves an editor whose terminal runs each RunCommandRequest's command with
// /bin/sh -c for real, as the editor's terminal runs a shell line, and keeps the requests.
func shellTerminal(t *testing.T, r *Registry, clientID string) <-chan *hostv1.RunCommandRequest {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeEditor{in: make(chan *cairnv1.ConnectRequest, 16), out: make(chan *cairnv1.ConnectResponse, 16), ctx: ctx}
	served := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-served
	})
	f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{Hello: &hostv1.Hello{
		Client: "test", ClientId: clientID, Terminal: true}}}
	go func() {
		defer close(served)
		if err := r.Serve(f); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	<-f.out // the welcome
	runs := make(chan *hostv1.RunCommandRequest, 4)
	send := func(m *cairnv1.ConnectRequest) {
		select {
		case f.in <- m:
		case <-ctx.Done():
		}
	}
	go func() {
		for {
			var m *cairnv1.ConnectResponse
			select {
			case m = <-f.out:
			case <-ctx.Done():
				return
			}
			req := m.GetRequest()
			if req == nil {
				continue
			}
			resp := &hostv1.Response{Id: req.GetId(), Result: &hostv1.Response_Empty{Empty: &hostv1.Empty{}}}
			rc := req.GetRunCommand()
			if rc != nil {
				resp.Result = &hostv1.Response_RunCommand{RunCommand: &hostv1.RunCommandResult{ShellIntegration: true, TerminalName: "Cairn"}}
			}
			send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Response{Response: resp}})
			if rc == nil {
				continue
			}
			runs <- rc
			cmd := exec.Command("/bin/sh", "-c", rc.GetCommand())
			cmd.Dir = rc.GetCwd()
			out, err := cmd.CombinedOutput()
			code := 0
			if err != nil {
				code = -1
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				}
			}
			send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: &hostv1.Event{Event: &hostv1.Event_CommandOutput{
				CommandOutput: &hostv1.CommandOutput{CommandId: rc.GetCommandId(), Data: string(out)}}}}})
			send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: &hostv1.Event{Event: &hostv1.Event_CommandExit{
				CommandExit: &hostv1.CommandExit{CommandId: rc.GetCommandId(), ExitCode: int32(code)}}}}})
		}
	}()
	return runs
}

// run runs req in the host's terminal and returns its output and exit code.
func run(t *testing.T, h *Host, req tools.CommandRequest) (string, int) {
	t.Helper()
	ctx := context.Background()
	p, err := h.Terminal().Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(p.Output())
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// A command with a sandbox policy runs in the editor's terminal as Cairn's launcher line
// (docs/sandbox.md): the line starts the launcher, which runs the user's command under the
// policy and exits with its exit code; the editor is told the user's command to show. Without
// a policy the terminal runs the command itself, as ever.
func TestTerminalRunsTheLauncherLine(t *testing.T) {
	sandboxtest.Require(t)
	r := NewRegistry("test")
	runs := shellTerminal(t, r, "editor")
	h, ok := r.Get("editor")
	if !ok {
		t.Fatal("no host")
	}
	ws, outside := t.TempDir(), t.TempDir()
	command := "echo inside > in.txt; touch '" + outside + "/out.txt'; echo \"it's done\"; exit 3"

	// The policy's temp folder does not exist yet: the terminal makes it.
	p := sandbox.Base{Roots: []string{ws}, Temp: filepath.Join(t.TempDir(), "task-tmp")}.Policy(sandbox.Workspace, false, "test")
	out, code := run(t, h, tools.CommandRequest{Command: command, Cwd: ws, Sandbox: &p})
	rc := <-runs
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if rc.GetDisplayCommand() != command || !strings.HasPrefix(rc.GetCommand(), sandbox.Quote(exe)+" ") ||
		!strings.HasSuffix(rc.GetCommand(), " -c "+sandbox.Quote(command)) {
		t.Errorf("command %q, display %q", rc.GetCommand(), rc.GetDisplayCommand())
	}
	if argv := rc.GetArgv(); len(argv) < 3 || argv[0] != exe || argv[len(argv)-1] != command || argv[len(argv)-2] != "-c" {
		t.Errorf("argv %q", argv)
	}
	if code != 3 || !strings.Contains(out, "it's done") || !strings.Contains(out, "Permission denied") {
		t.Errorf("exit %d, output %q", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "in.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("in.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the command wrote outside its roots")
	}

	out, code = run(t, h, tools.CommandRequest{Command: "echo plain", Cwd: ws})
	rc = <-runs
	if rc.GetCommand() != "echo plain" || rc.GetDisplayCommand() != "" || len(rc.GetArgv()) != 0 || code != 0 || out != "plain\n" {
		t.Errorf("without a policy: %+v, exit %d, output %q", rc, code, out)
	}
}
