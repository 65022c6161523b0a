package cli

import (
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// TestSandboxLine: the run's first line in each state (docs/cli.md, "The first line").
func TestSandboxLine(t *testing.T) {
	const mech = "Linux namespaces (user, mount, pid), Landlock and seccomp (Landlock ABI 7)"
	for _, c := range []struct {
		name    string
		st      *cairnv1.SandboxStatus
		flagOff bool
		want    string
	}{
		{"on", &cairnv1.SandboxStatus{Available: true, Mechanism: mech},
			false, "sandbox: on (" + mech + "); network off for auto-approved commands"},
		{"on with the network", &cairnv1.SandboxStatus{Available: true, Mechanism: mech, Network: true},
			false, "sandbox: on (" + mech + "); network on for auto-approved commands"},
		{"off by the setting", &cairnv1.SandboxStatus{Available: true, Mechanism: mech, Off: true, OffBy: "sandboxDisabled setting"},
			false, "sandbox: off (sandboxDisabled setting): commands run without the kernel's protection"},
		{"off by the flag, which became the run's daemon's setting", &cairnv1.SandboxStatus{Off: true, OffBy: "sandboxDisabled setting"},
			true, "sandbox: off (--no-sandbox): commands run without the kernel's protection"},
		{"off by the task's own flag", &cairnv1.SandboxStatus{Available: true, Off: true, OffBy: "--no-sandbox"},
			false, "sandbox: off (--no-sandbox): commands run without the kernel's protection"},
		{"unavailable", &cairnv1.SandboxStatus{Reason: "Landlock is not enabled in this kernel"},
			false, "sandbox: unavailable here: Landlock is not enabled in this kernel; every command will ask (turn the sandbox off with --no-sandbox to auto-approve)"},
		{"an older daemon", nil, false, "sandbox: unknown: the daemon did not say how commands run (a cairn serve older than this cairn?)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sandboxLine(c.st, c.flagOff); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
