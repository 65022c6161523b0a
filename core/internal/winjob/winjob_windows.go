//go:build windows

package winjob

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// Assign puts the process with this pid into a new job object and returns the job; the caller
// ends it with windows.TerminateJobObject and closes it with windows.CloseHandle. A child the
// process starts before the assignment escapes the job: shells and hooks start children later
// than the microseconds this takes.
func Assign(pid int) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("winjob: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("winjob: %w", errors.Join(err, windows.CloseHandle(job)))
	}
	defer func() { _ = windows.CloseHandle(h) }() // a handle only: the job keeps what it needs
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return 0, fmt.Errorf("winjob: %w", errors.Join(err, windows.CloseHandle(job)))
	}
	return job, nil
}
