package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Mechanism names what enforces the sandbox on this platform.
const Mechanism = "Linux namespaces (user, mount, pid), Landlock and seccomp"

// Apply makes cmd run inside the sandbox under p: the launcher (this binary, re-executed)
// takes cmd's place with the command as its arguments, the policy rides in cmd's
// environment, and the namespaces are added to cmd.SysProcAttr, so set Setsid, Setctty or
// Setpgid there before calling Apply. cmd.Dir and the standard files stay the command's.
func Apply(cmd *exec.Cmd, p Policy) error {
	if p.Tier != ReadOnly && p.Tier != Workspace {
		return fmt.Errorf("sandbox: unknown tier %q", p.Tier)
	}
	p.HostUID, p.HostGID = os.Getuid(), os.Getgid()
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	} else if !strings.Contains(argv[0], "/") && cmd.Path != "" {
		argv = append([]string{cmd.Path}, argv[1:]...) // resolved on the caller's PATH
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Path = "/proc/self/exe"
	cmd.Args = append([]string{"cairn", argInner, "--"}, argv...)
	cmd.Env = append(env[:len(env):len(env)], envPolicy+"="+string(data))
	cmd.SysProcAttr = nsAttr(cmd.SysProcAttr)
	cmd.Err = nil // a lookup failure of the command itself is the launcher's to report
	return nil
}

// Argv returns the launcher line that runs argv under p from a terminal Cairn does not start
// itself (the editor's, an ACP client's): the policy is written to a file in p.Temp, which
// must exist.
func Argv(p Policy, argv []string) ([]string, error) {
	if p.Temp == "" {
		return nil, errors.New("sandbox: a terminal line needs the policy's temp folder")
	}
	p.HostUID, p.HostGID = os.Getuid(), os.Getgid()
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	f, err := os.CreateTemp(p.Temp, "policy-*.json")
	if err != nil {
		return nil, fmt.Errorf("sandbox: policy file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("sandbox: policy file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("sandbox: policy file: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: launcher: %w", err)
	}
	return append([]string{exe, argOuter, "--policy", f.Name(), "--"}, argv...), nil
}

// probe starts the launcher once with a command that does nothing, under the read-only tier
// with the network off: where that works, every tier works.
func probe() Status {
	abi, err := LandlockABI()
	if err != nil {
		return Status{Reason: "Landlock is not enabled in this kernel (" + err.Error() + "); add landlock to the lsm= boot parameter"}
	}
	if abi < minLandlockABI {
		return Status{Reason: fmt.Sprintf("this kernel's Landlock (ABI %d) cannot restrict network connections; Linux 6.7 or later is needed", abi)}
	}
	tmp, err := os.MkdirTemp("", "cairn-probe-")
	if err != nil {
		return Status{Reason: "no temp folder: " + err.Error()}
	}
	defer func() { _ = os.RemoveAll(tmp) }() // best effort: an empty folder in the temp dir
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := Apply(cmd, Policy{Tier: ReadOnly, Temp: tmp}); err != nil {
		return Status{Reason: err.Error()}
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return Status{Reason: startReason(err)}
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill() // it may have ended meanwhile
		return Status{Reason: fmt.Sprintf("the sandbox launcher did not answer within 10 s (%v)", <-done)}
	}
	if err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), "cairn sandbox: "))
		if msg == "" {
			msg = err.Error()
		}
		return Status{Reason: "the sandbox could not be set up: " + msg}
	}
	return Status{Available: true, Mechanism: fmt.Sprintf("%s (Landlock ABI %d)", Mechanism, abi)}
}

// startReason explains a failure to create the namespaces.
func startReason(err error) string {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) {
		return "unprivileged user namespaces are not available (" + err.Error() +
			"); allow them with sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces, or kernel.apparmor_restrict_unprivileged_userns=0"
	}
	return "the sandbox launcher could not start: " + err.Error()
}
