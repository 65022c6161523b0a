package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Mechanism names what enforces the sandbox on this platform.
const Mechanism = "macOS sandbox-exec"

const sandboxExec = "/usr/bin/sandbox-exec"

// Apply makes cmd run under sandbox-exec with p's generated profile.
func Apply(cmd *exec.Cmd, p Policy) error {
	argv, err := Argv(p, append([]string{cmd.Path}, cmd.Args[1:]...))
	if err != nil {
		return err
	}
	cmd.Path = sandboxExec
	cmd.Args = argv
	cmd.Err = nil
	return nil
}

// Argv returns the sandbox-exec line that runs argv under p.
func Argv(p Policy, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	env := []string{}
	if p.Temp != "" {
		env = append(env, "/usr/bin/env", "TMPDIR="+p.Temp)
	}
	return append(append([]string{sandboxExec, "-p", Profile(p)}, env...), argv...), nil
}

func probe() Status {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Status{Reason: "this Mac has no " + sandboxExec + " (" + err.Error() + ")"}
	}
	if out, err := exec.Command(sandboxExec, "-p", Profile(Policy{Tier: ReadOnly, Temp: os.TempDir()}), "/usr/bin/true").CombinedOutput(); err != nil {
		return Status{Reason: fmt.Sprintf("sandbox-exec refused Cairn's profile: %v %s", err, out)}
	}
	return Status{Available: true, Mechanism: Mechanism}
}
