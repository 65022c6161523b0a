//go:build !unix

package hooks

import "os/exec"

// inGroup kills only the hook's process on cancel: there are no process groups here.
func inGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return cmd.Process.Kill() }
}
