package sandbox

import "testing"

// BenchmarkExplainPatterns is what Explain's first call pays for compiling its patterns, work
// the package no longer does at process start, where the launcher paid it for every sandboxed
// command (docs/performance.md, "P5 — the daemon at rest").
func BenchmarkExplainPatterns(b *testing.B) {
	for b.Loop() {
		sinkPatterns = compilePatterns()
	}
}

// sinkPatterns keeps the compiler from dropping the compiled patterns.
var sinkPatterns explainPatterns
