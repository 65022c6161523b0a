//go:build !linux

package server

import "crypto/rand"

// fillRandom fills b from crypto/rand (on Linux the kernel's getrandom(2) directly).
func fillRandom(b []byte) error {
	_, err := rand.Read(b)
	return err
}
