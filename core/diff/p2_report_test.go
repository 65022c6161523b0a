package diff

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestP2Report prints spec §12's P2 table: the final apply and the whole streaming preview
// sequence for 1, 10 and 50 blocks on 1,000 / 10,000 / 100,000-line files, plus 10 blocks that
// need the whitespace-trimmed fallback on 100,000 lines, with the targets and Cline's figures
// beside them. It measures, it does not judge: it runs only under CAIRN_BENCH=1 (`make bench`
// runs `CAIRN_BENCH=1 go test -run Report -v ./...`).
//
// Columns: final = Apply on the complete diff; stream = a new Preview fed the diff in 20-byte
// chunks, then Final (BenchmarkStreaming); stream+views = the same, also building the proposed
// content each time a new block is located, which is what the edit tool sends the diff view
// at the least. Wall time per operation, CPU time per operation in brackets (the benchmark
// machine is shared; CPU time is what the engine burns).
func TestP2Report(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") != "1" {
		t.Skip("set CAIRN_BENCH=1 to print the P2 table")
	}
	type target struct{ final, stream, cline string }
	targets := map[string]target{
		"blocks=50/lines=100000":         {"≤ 2 ms", "≤ 30 ms", "Cline: final 2.1 ms, streaming 1.2 s"},
		"blocks=10/lines=100000/trimmed": {"≤ 10 ms", "≤ 100 ms", "Cline: final 99 ms, streaming 16.4 s"},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nP2 edits (spec §12): wall [cpu] per operation\n")
	fmt.Fprintf(&b, "%-32s %-22s %-22s %-22s %s\n", "case", "final", "stream (20 B chunks)", "stream+views", "target / anchor")
	for _, c := range benchCases {
		original, diff := genFile(c.lines), benchDiff(c.blocks, c.lines, c.trimmed)
		final := measure(func() {
			if _, err := Apply(original, diff); err != nil {
				t.Fatal(err)
			}
		})
		stream := measure(func() { streamOnce(t, original, diff, false) })
		views := measure(func() { streamOnce(t, original, diff, true) })
		tg := targets[c.name()]
		note := ""
		if tg.final != "" {
			note = fmt.Sprintf("final %s, stream %s (%s)", tg.final, tg.stream, tg.cline)
		}
		fmt.Fprintf(&b, "%-32s %-22s %-22s %-22s %s\n", c.name(), final, stream, views, note)
	}
	t.Log(b.String())
}

// streamOnce plays the whole streaming sequence once.
func streamOnce(t *testing.T, original []byte, diff string, views bool) {
	p := NewPreview(original)
	blocks := 0
	for i := 20; ; i += 20 {
		v := p.Update(diff[:min(i, len(diff))])
		if v.Err != nil {
			t.Fatal(v.Err)
		}
		if views && v.Changed && v.Blocks != blocks {
			blocks = v.Blocks
			_ = p.Content()
		}
		if i >= len(diff) {
			break
		}
	}
	if _, err := p.Final(diff); err != nil {
		t.Fatal(err)
	}
}

// timing is one measured operation.
type timing struct{ wall, cpu time.Duration }

func (m timing) String() string { return fmt.Sprintf("%s [%s]", round(m.wall), round(m.cpu)) }

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(100 * time.Nanosecond)
	}
}

// measure runs op under testing.Benchmark and returns wall and CPU time per call.
func measure(op func()) timing {
	var cpuPerOp time.Duration
	r := testing.Benchmark(func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			op()
		}
		cpuPerOp = time.Duration((cpuTime() - start) / int64(b.N))
	})
	return timing{wall: time.Duration(r.NsPerOp()), cpu: cpuPerOp}
}
