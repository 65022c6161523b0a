package parse

import (
	"reflect"
	"testing"
	"time"
)

// BenchmarkP1 is the P1 figure of `make bench`: the incremental parser streaming a
// write_to_file in 20-byte chunks with Blocks() after each, per message size. Its anchor is
// re-parsing the accumulated text on every chunk (Cline's way) with this same parser, timed
// once per size before the sub-benchmarks (it is quadratic: at 500 KB one stream takes tens
// of seconds). Metrics: ms/stream and ns/chunk of the incremental parser, reparse-ms of the
// anchor and x-faster, how many times faster the incremental parser is. Targets: 100 KB
// ≤ 50 ms (Cline 14.9 s), 500 KB ≤ 250 ms (Cline 322 s).
func BenchmarkP1(b *testing.B) {
	g := DefaultGrammar()
	for _, size := range benchSizes {
		msg := writeMessage(size)
		chunks := chunksOf(msg, benchChunk)
		start := time.Now()
		acc := 0
		var reparsed []Block
		for _, c := range chunks {
			acc += len(c)
			reparsed = Parse(g, msg[:acc])
		}
		reparse := time.Since(start)
		b.Run(benchName(size), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			var final []Block
			for b.Loop() {
				p := New(g)
				for _, c := range chunks {
					p.Feed(c)
					sinkBlocks = p.Blocks()
				}
				final = p.End()
			}
			// Both ways must read the same message the same way, or the ratio compares
			// different work.
			if !reflect.DeepEqual(final, reparsed) {
				b.Fatalf("the streamed blocks differ from the re-parsed ones:\n%+v\n%+v", final, reparsed)
			}
			perStream := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			reportStream(b, len(chunks))
			b.ReportMetric(float64(reparse.Microseconds())/1000, "reparse-ms")
			b.ReportMetric(float64(reparse.Nanoseconds())/perStream, "x-faster")
		})
	}
}
