//go:build unix

package diff

import "syscall"

// cpuTime is the process's user+system CPU time in ns. Benchmarks report it next to wall
// time because the shared benchmark machine is often oversubscribed, which inflates wall
// time but not the CPU the engine actually burns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
