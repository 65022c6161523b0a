//go:build !windows

package wine

// Detected is false: Wine runs Windows binaries only.
func Detected() bool { return false }
