//go:build windows

package winjob

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// OnClose says what becomes of the processes in a job when its last handle is closed.
type OnClose int

const (
	// Leave lets them run on.
	Leave OnClose = iota
	// End ends them (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). The system closes a process's
	// handles however it ends, so a daemon that dies, even killed outright, takes the job's
	// processes with it. The handle is not inheritable (CreateJobObject without security
	// attributes), so no process in the job holds the job open.
	End
)

// Assign puts the process with this pid into a new job object and returns the job; the caller
// ends it with windows.TerminateJobObject and closes it with windows.CloseHandle, which ends
// what is still in it when onClose is End. A child the process starts before the assignment
// escapes the job: shells and hooks start children later than the microseconds this takes.
func Assign(pid int, onClose OnClose) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("winjob: %w", err)
	}
	if onClose == End {
		var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
		info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
		if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
			return 0, fmt.Errorf("winjob: %w", errors.Join(err, windows.CloseHandle(job)))
		}
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

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which x/sys/windows does not
// declare.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// Active returns how many processes run in job.
func Active(job windows.Handle) (int, error) {
	var info basicAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, fmt.Errorf("winjob: %w", err)
	}
	return int(info.ActiveProcesses), nil
}
