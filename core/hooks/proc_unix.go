//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// inGroup starts the hook in its own process group and makes cancelling it kill the whole
// group: a hook that started children (a shell running sleep) leaves nothing behind.
func inGroup(cmd *exec.Cmd) procGroup {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill() // no group (it already exited): the process alone
		}
		return nil
	}
	return pgroup{}
}

// pgroup needs nothing once the hook started, nor after: the kernel keeps the group.
type pgroup struct{}

func (pgroup) started() {}
func (pgroup) release() {}
