package browser

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// TestBrowserReport prints the browser's figures on this machine: launch → first screenshot
// (browser start, page load, settle, capture) and action → screenshot (p50 and p90 of clicks
// on a page that reacts at once).
func TestBrowserReport(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") == "" {
		t.Skip("set CAIRN_BENCH=1 to print the browser figures")
	}
	needBrowser(t)
	srv := testSite(t)
	isolate(t)
	ctx := context.Background()
	var launches, actions []time.Duration
	for range 3 {
		s := NewSession(Options{})
		start := time.Now()
		if _, err := s.Launch(ctx, srv.URL+"/click.html"); err != nil {
			t.Fatal(err)
		}
		launches = append(launches, time.Since(start))
		for range 10 {
			start := time.Now()
			if _, err := s.Click(ctx, 200, 125); err != nil {
				t.Fatal(err)
			}
			actions = append(actions, time.Since(start))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(launches)
	slices.Sort(actions)
	pct := func(d []time.Duration, p int) time.Duration { return d[(len(d)-1)*p/100] }
	t.Logf("browser launch → first screenshot: p50 %v, max %v (%d launches)", pct(launches, 50).Round(time.Millisecond),
		launches[len(launches)-1].Round(time.Millisecond), len(launches))
	t.Logf("browser action → screenshot: p50 %v, p90 %v (%d clicks, %v network quiet period)",
		pct(actions, 50).Round(time.Millisecond), pct(actions, 90).Round(time.Millisecond), len(actions), DefaultQuiet)
}
