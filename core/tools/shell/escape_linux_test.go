package shell

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
)

// Without the command sandbox, a process that leaves the command's process group (setsid, a
// program that daemonizes itself) is kept as the command all the same: the model is told, and
// StopAll ends it (README, "Commands that keep running").
func TestEscapedLeftoversAreKeptAndStopped(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("setsid (util-linux) is missing: a Linux CI machine has it, and without it this case tests nothing")
		}
		t.Skip("no setsid here")
	}
	for _, tc := range []struct{ name, line string }{
		{"setsid &", "setsid sleep 60 >/dev/null 2>&1 & echo $!"},
		{"double fork", "sh -c 'setsid sleep 60 >/dev/null 2>&1 & echo $!' & wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			ui := &fakeUI{approve: tools.Answer{Approved: true}}
			env := newEnv(t, ui)
			reg := NewRegistry()
			res, err := New(reg).Run(ctx, env, call("command", tc.line, "requires_approval", "false"))
			if err != nil {
				t.Fatal(err)
			}
			pid := childPID(t, ui)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if !strings.Contains(res.Text, "run on in the background as command 1") {
				t.Fatalf("the result does not keep the escaped process %d:\n%s", pid, res.Text)
			}
			if running, _ := reg.Snapshot(); len(running) != 1 {
				t.Errorf("environment details list %d running commands, want the kept one", len(running))
			}
			stopped, err := reg.StopAll(ctx)
			if err != nil || len(stopped) != 1 {
				t.Fatalf("StopAll = %+v, %v", stopped, err)
			}
			waitGone(t, pid)
		})
	}
}
