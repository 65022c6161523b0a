//go:build !unix

package diff

// cpuTime is unavailable here; benchmarks then report 0 CPU ns/op.
func cpuTime() int64 { return 0 }
