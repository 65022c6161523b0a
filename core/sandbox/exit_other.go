//go:build !linux

package sandbox

import "os/exec"

// ExitReport is Linux only; elsewhere ReportExit returns nil and the command's exit is the
// launched process's own.
type ExitReport struct{}

// ReportExit returns nil: no launcher stays behind the command here.
func ReportExit(*exec.Cmd) (*ExitReport, error) { return nil, nil }

// Started does nothing.
func (*ExitReport) Started() {}

// Close does nothing.
func (*ExitReport) Close() {}

// Wait reports nothing.
func (*ExitReport) Wait() (int, bool) { return 0, false }
