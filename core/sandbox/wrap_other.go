//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os/exec"
)

// Mechanism names what enforces the sandbox on this platform: nothing yet.
const Mechanism = ""

// errUnsupported is why there is no sandbox here.
var errUnsupported = errors.New("Cairn has no command sandbox on this platform yet") //nolint:staticcheck // a sentence for the user

// Apply fails: there is no sandbox here, and callers fail closed (every command asks).
func Apply(*exec.Cmd, Policy) error { return errUnsupported }

// Argv fails like Apply.
func Argv(Policy, []string) ([]string, error) { return nil, errUnsupported }

func probe() Status { return Status{Reason: errUnsupported.Error()} }
