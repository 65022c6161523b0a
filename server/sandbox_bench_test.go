package server

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools"
)

// BenchmarkSandboxStart measures what the command sandbox adds to starting a command
// (docs/performance.md, "Sandbox start"): `true` run through Cairn's own terminal, plain and
// in the sandbox's workspace tier (namespaces, mounts, Landlock, seccomp), one after the
// other so that the machine's drift hits both alike, from start to exit code. The launcher is
// this test binary re-executed, which links the daemon's packages. Target: added-ms ≤ 10 at
// the median.
func BenchmarkSandboxStart(b *testing.B) {
	if st := sandbox.Probe(); !st.Available {
		b.Skip("no sandbox here: " + st.Reason)
	}
	root, temp := b.TempDir(), b.TempDir()
	pol := sandbox.Base{Roots: []string{root}, Temp: temp}.Policy(sandbox.Workspace, false, "")
	term := direct.NewTerminal("/bin/sh")
	start := func(p *sandbox.Policy) time.Duration {
		t0 := time.Now()
		proc, err := term.Run(context.Background(), tools.CommandRequest{Command: "true", Cwd: root, Sandbox: p})
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, proc.Output()) // drained so the terminal can close
		code, err := proc.Wait(context.Background())
		if err != nil || code != 0 {
			b.Fatalf("exit %d, %v", code, err)
		}
		return time.Since(t0)
	}
	const runs = 40
	var plain, boxed []time.Duration
	for range b.N {
		start(nil) // warm-up of both paths
		start(&pol)
		for range runs {
			plain = append(plain, start(nil))
			boxed = append(boxed, start(&pol))
		}
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / float64(time.Millisecond)
	}
	p, s := med(plain), med(boxed)
	b.ReportMetric(p, "plain-ms")
	b.ReportMetric(s, "sandbox-ms")
	b.ReportMetric(s-p, "added-ms")
	b.ReportMetric(s/p, "x-plain")
}
