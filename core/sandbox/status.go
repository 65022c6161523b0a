package sandbox

import "sync"

// Status says whether commands can run in the sandbox here, and why not.
type Status struct {
	Available bool
	// Mechanism names what enforces it, when available.
	Mechanism string
	// Reason says why it is not available, in words for the user.
	Reason string
}

var (
	probeOnce   sync.Once
	probeResult Status
)

// Probe reports whether the sandbox can be set up on this machine, trying it once per process.
func Probe() Status {
	probeOnce.Do(func() { probeResult = probe() })
	return probeResult
}
