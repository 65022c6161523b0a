package parse

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestP1Report prints spec §12 P1 when CAIRN_BENCH=1 (`make bench`): the incremental parser
// streaming a write_to_file in 20-byte chunks, beside re-parsing the accumulated text on every
// chunk (Cline's way) with this same parser, and the targets.
func TestP1Report(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") == "" {
		t.Skip("set CAIRN_BENCH=1 (make bench) to print P1")
	}
	g := DefaultGrammar()
	fmt.Printf("\nP1 parser — write_to_file streamed in %d-byte chunks, Blocks() after each\n", benchChunk)
	fmt.Printf("%-8s %14s %14s %12s %14s   %s\n", "size", "incremental", "per chunk", "re-parse", "ratio", "target (Cline)")
	targets := map[int]string{2 << 10: "-", 100 << 10: "≤ 50 ms (14.9 s)", 500 << 10: "≤ 250 ms (322 s)"}
	for _, size := range benchSizes {
		msg := writeMessage(size)
		chunks := chunksOf(msg, benchChunk)
		inc := testing.Benchmark(func(b *testing.B) {
			for range b.N {
				p := New(g)
				for _, c := range chunks {
					p.Feed(c)
					sinkBlocks = p.Blocks()
				}
				sinkBlocks = p.End()
			}
		})
		perStream := time.Duration(inc.NsPerOp())
		// Re-parsing is quadratic: at 500 KB one stream takes tens of seconds, so it runs once.
		start := time.Now()
		acc := 0
		for _, c := range chunks {
			acc += len(c)
			sinkBlocks = Parse(g, msg[:acc])
		}
		reparse := time.Since(start)
		fmt.Printf("%-8s %14v %12dns %12v %13.0fx   %s\n", benchName(size), perStream.Round(time.Microsecond),
			inc.NsPerOp()/int64(len(chunks)), reparse.Round(time.Millisecond), float64(reparse)/float64(perStream), targets[size])
	}
}
