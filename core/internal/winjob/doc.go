// Package winjob puts a started process into a Windows job object, so that ending the job
// ends the process and every process it starts: on Windows the job is what a process group is
// on Unix. The direct terminal and hooks use it. It has code on Windows only.
package winjob
