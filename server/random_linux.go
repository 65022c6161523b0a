package server

import (
	"crypto/rand"

	"golang.org/x/sys/unix"
)

// fillRandom fills b from getrandom(2), the kernel's generator, which crypto/rand reads too:
// crypto/rand's first call in a process first sets up the per-thread state of the vDSO's
// generator, 50 to 100 µs that a start would otherwise spend before its handshake
// (docs/performance.md, "P5 — the daemon at rest"). Where the call is missing or falls short
// (a kernel before 3.17), crypto/rand fills b.
func fillRandom(b []byte) error {
	if n, err := unix.Getrandom(b, 0); err == nil && n == len(b) {
		return nil
	}
	_, err := rand.Read(b)
	return err
}
