package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/mdsections"
)

// benchDiff builds a diff of n blocks spread evenly over a genFile(lines) file. Each block
// rewrites one "y := ..." line with two lines of context. With trimmed set, the SEARCH text
// is re-indented with spaces so only the whitespace-trimmed level can find it.
func benchDiff(n, lines int, trimmed bool) string {
	var b strings.Builder
	step := lines / n / 4 * 4 // keep every target on a "y := ..." line
	for k := 0; k < n; k++ {
		i := k*step + 2 // the "y := x * i" line of a group (i%4 == 2)
		search := []string{
			fmt.Sprintf("func f%d(x int) int {", i-1),
			fmt.Sprintf("\ty := x * %d // step %d", i, i),
			fmt.Sprintf("\treturn y + %d", i+1),
		}
		if trimmed {
			for j := range search {
				search[j] = "    " + strings.TrimLeft(search[j], "\t")
			}
		}
		b.WriteString("------- SEARCH\n")
		for _, l := range search {
			b.WriteString(l + "\n")
		}
		b.WriteString("=======\n")
		fmt.Fprintf(&b, "func f%d(x int) int {\n\ty := x * %d // edited\n\ty++\n\treturn y + %d\n", i-1, i, i+1)
		b.WriteString("+++++++ REPLACE\n")
	}
	return b.String()
}

type benchCase struct {
	blocks, lines int
	trimmed       bool
}

var benchCases = func() []benchCase {
	var cs []benchCase
	for _, lines := range []int{1_000, 10_000, 100_000} {
		for _, blocks := range []int{1, 10, 50} {
			cs = append(cs, benchCase{blocks, lines, false})
		}
	}
	return append(cs, benchCase{10, 100_000, true})
}()

func (c benchCase) name() string {
	s := fmt.Sprintf("blocks=%d/lines=%d", c.blocks, c.lines)
	if c.trimmed {
		s += "/trimmed"
	}
	return s
}

// BenchmarkApply is P2's final apply (docs/performance.md: 50 blocks on 100k lines ≤ 2 ms; 10
// trimmed blocks ≤ 10 ms).
func BenchmarkApply(b *testing.B) {
	for _, c := range benchCases {
		original, diff := genFile(c.lines), benchDiff(c.blocks, c.lines, c.trimmed)
		b.Run(c.name(), func(b *testing.B) {
			b.SetBytes(int64(len(original)))
			cpu := cpuTime()
			for b.Loop() {
				if _, err := Apply(original, diff); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkStreaming is P2's whole streaming sequence: a new Preview, the diff fed in 20-byte
// chunks, the content built whenever the view changed on a new block (what a throttling caller
// would do), and the final Apply (docs/performance.md: ≤ 30 ms; trimmed ≤ 100 ms).
func BenchmarkStreaming(b *testing.B) {
	for _, c := range benchCases {
		original, diff := genFile(c.lines), benchDiff(c.blocks, c.lines, c.trimmed)
		b.Run(c.name(), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				p := NewPreview(original)
				for i := 20; ; i += 20 {
					v := p.Update(diff[:min(i, len(diff))])
					if v.Err != nil {
						b.Fatal(v.Err)
					}
					if i >= len(diff) {
						break
					}
				}
				if _, err := p.Final(diff); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkMessagesParse is what the first error report pays for parsing messages.md, work
// the package no longer does at process start (docs/performance.md, "P5 — the daemon at rest").
func BenchmarkMessagesParse(b *testing.B) {
	for b.Loop() {
		sinkSet = mdsections.Templates(messagesMD)
	}
}

// sinkSet keeps the compiler from dropping the parsed templates.
var sinkSet mdsections.Set
