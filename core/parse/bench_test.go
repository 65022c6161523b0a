package parse

import (
	"fmt"
	"strings"
	"testing"
)

// P1 (docs/performance.md): streaming a write_to_file in 20-byte chunks, calling Blocks after every
// chunk as the loop does, beside the way Cline works — parsing the whole accumulated text again on
// every chunk — measured with this same parser so the ratio is honest.

const benchChunk = 20

var benchSizes = []int{2 << 10, 100 << 10, 500 << 10}

var sinkBlocks []Block

// writeMessage is a message of about size bytes: a sentence, then a write_to_file whose
// content is Go-like code with a '<' on every line, the character the scanner stops at.
func writeMessage(size int) string {
	var sb strings.Builder
	sb.WriteString("I'll create the file now.\n\n<write_to_file>\n<path>src/big.go</path>\n<content>\n")
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "\tfor j := 0; j < n; j++ { total += weights[j] * %d } // <step %d>\n", i%97, i)
	}
	sb.WriteString("</content>\n</write_to_file>")
	return sb.String()
}

func chunksOf(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func benchName(size int) string { return fmt.Sprintf("%dKB", size>>10) }

func reportStream(b *testing.B, chunks int) {
	perStream := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perStream/1e6, "ms/stream")
	b.ReportMetric(perStream/float64(chunks), "ns/chunk")
}

// BenchmarkStream is the incremental parser as the loop uses it.
func BenchmarkStream(b *testing.B) {
	g := DefaultGrammar()
	for _, size := range benchSizes {
		msg := writeMessage(size)
		chunks := chunksOf(msg, benchChunk)
		b.Run(benchName(size), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for range b.N {
				p := New(g)
				for _, c := range chunks {
					p.Feed(c)
					sinkBlocks = p.Blocks()
				}
				sinkBlocks = p.End()
				if !p.ToolDone() {
					b.Fatal("tool not done")
				}
			}
			reportStream(b, len(chunks))
		})
	}
}

// BenchmarkReparse is the baseline: Parse of the accumulated text after every chunk.
func BenchmarkReparse(b *testing.B) {
	g := DefaultGrammar()
	for _, size := range benchSizes {
		msg := writeMessage(size)
		chunks := chunksOf(msg, benchChunk)
		b.Run(benchName(size), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for range b.N {
				end := 0
				for _, c := range chunks {
					end += len(c)
					sinkBlocks = Parse(g, msg[:end])
				}
			}
			reportStream(b, len(chunks))
		})
	}
}

// BenchmarkChunkAfter measures one 20-byte chunk plus Blocks deep into an open content
// value: flat means the cost does not depend on how much came before.
func BenchmarkChunkAfter(b *testing.B) {
	g := DefaultGrammar()
	line := "\tfor j := 0; j < n; j++ { total += weights[j] } // <step>\n"
	chunks := chunksOf(strings.Repeat(line, 64), benchChunk)
	for _, size := range benchSizes {
		msg := writeMessage(size)
		msg = msg[:strings.LastIndex(msg, "</content>")]
		b.Run(benchName(size), func(b *testing.B) {
			p := New(g)
			p.Feed(msg)
			b.ResetTimer()
			for i := range b.N {
				p.Feed(chunks[i%len(chunks)])
				sinkBlocks = p.Blocks()
			}
		})
	}
}
