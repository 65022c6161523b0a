//go:build windows

package hooks

import (
	"os/exec"
	"sync"

	"golang.org/x/sys/windows"

	"github.com/cairnhq/cairn/core/internal/winjob"
)

// inGroup puts the hook, once started, in a job object and makes cancelling it end the whole
// job: a .cmd hook that started a program leaves nothing behind, as a process group does on
// Unix. Without a job (it could not be made) cancelling ends the hook's own process only.
func inGroup(cmd *exec.Cmd) procGroup {
	g := &jobGroup{cmd: cmd}
	cmd.Cancel = func() error {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.job != 0 && windows.TerminateJobObject(g.job, 1) == nil {
			return nil
		}
		return cmd.Process.Kill()
	}
	return g
}

// jobGroup is the job object of one hook run.
type jobGroup struct {
	cmd *exec.Cmd
	// mu guards job: 0 until the hook is in it, and again once released.
	mu  sync.Mutex
	job windows.Handle
}

// started assigns the hook's process to a new job. Without one (it could not be made),
// cancelling ends the hook's own process only. Closing the job leaves what is in it running
// (winjob.Leave), as a hook's process group does on Unix.
func (g *jobGroup) started() {
	job, err := winjob.Assign(g.cmd.Process.Pid, winjob.Leave)
	if err != nil {
		return
	}
	g.mu.Lock()
	g.job = job
	g.mu.Unlock()
}

// release closes the job once the hook was waited for; what is still in it runs on.
func (g *jobGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.CloseHandle(g.job) // a handle: nothing is lost if closing fails
		g.job = 0
	}
}
