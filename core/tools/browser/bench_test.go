package browser

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkBrowser is the browser figure of `make bench` on this machine. One iteration
// launches a session three times; each launch is followed by ten clicks on a page that reacts
// at once, and the session is closed. Metrics: launch-p50-ms and launch-max-ms, launch →
// first screenshot (browser start, page load, settle, capture); click-p50-ms and
// click-p90-ms, action → screenshot, which includes the network quiet period (DefaultQuiet).
func BenchmarkBrowser(b *testing.B) {
	needBrowser(b)
	srv := testSite(b)
	isolate(b)
	ctx := context.Background()
	var launches, actions []time.Duration
	for b.Loop() {
		for range 3 {
			s := NewSession(Options{})
			start := time.Now()
			if _, err := s.Launch(ctx, srv.URL+"/click.html"); err != nil {
				b.Fatal(err)
			}
			launches = append(launches, time.Since(start))
			for range 10 {
				start := time.Now()
				if _, err := s.Click(ctx, 200, 125); err != nil {
					b.Fatal(err)
				}
				actions = append(actions, time.Since(start))
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	slices.Sort(launches)
	slices.Sort(actions)
	pct := func(d []time.Duration, p int) float64 { return float64(d[(len(d)-1)*p/100].Microseconds()) / 1000 }
	b.ReportMetric(pct(launches, 50), "launch-p50-ms")
	b.ReportMetric(pct(launches, 100), "launch-max-ms")
	b.ReportMetric(pct(actions, 50), "click-p50-ms")
	b.ReportMetric(pct(actions, 90), "click-p90-ms")
	b.ReportMetric(float64(DefaultQuiet.Milliseconds()), "quiet-ms")
}
