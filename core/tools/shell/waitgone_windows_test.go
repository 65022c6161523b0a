//go:build windows

package shell

import "testing"

// waitGone needs Unix process probing (signal 0, /proc): on Windows the tests that use it
// stop there.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	t.Skipf("cannot probe process %d on Windows", pid)
}
