//go:build unix

package eval

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the tests in their own process group and stops the whole group at the
// time limit: npm, cargo and go test start children that would outlive a killed parent.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
