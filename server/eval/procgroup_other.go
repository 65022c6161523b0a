//go:build !unix

package eval

import "os/exec"

// ownGroup leaves the command as it is: the time limit kills the test command itself, and
// WaitDelay bounds the wait for what it started.
func ownGroup(*exec.Cmd) {}
