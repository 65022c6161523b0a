package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// BenchmarkMCPHandshake is the MCP handshake figure of `make bench`: the daemon's exec →
// handshake time with five MCP servers configured (five-p50-ms, five-mean-ms) beside none
// (the anchor: none-p50-ms, none-mean-ms), started alternately, and x-none, the ratio of the
// medians. One iteration is 31 starts of each. Target: the five servers cost the handshake
// nothing (x-none about 1), since the hub connects them in the background.
func BenchmarkMCPHandshake(b *testing.B) {
	bin := everythingBin(b)
	dir := b.TempDir()
	cairn := filepath.Join(dir, "cairn")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", cairn, "./server/cmd/cairn")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	servers := map[string]any{}
	for i := range 5 {
		servers[fmt.Sprintf("everything%d", i)] = map[string]any{"command": bin, "args": []string{"stdio"}}
	}
	settings, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		b.Fatal(err)
	}
	start := func(i int, withMCP bool) time.Duration {
		data := filepath.Join(dir, fmt.Sprintf("data%d-%v", i, withMCP))
		if err := os.MkdirAll(data, 0o700); err != nil {
			b.Fatal(err)
		}
		if withMCP {
			if err := os.WriteFile(filepath.Join(data, "mcp_settings.json"), settings, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		cmd, took := startServer(b, []string{cairn, "serve", "--data-dir", data, "--socket", filepath.Join(dir, fmt.Sprintf("s%d-%v.sock", i, withMCP))})
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Logf("cairn serve exited: %v", err)
		}
		return took
	}
	const runs = 31
	var none, five []time.Duration
	run := 0
	for b.Loop() {
		for range runs {
			run++
			none = append(none, start(run, false))
			five = append(five, start(run, true))
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(p50(none)), "none-p50-ms")
	b.ReportMetric(ms(mean(none)), "none-mean-ms")
	b.ReportMetric(ms(p50(five)), "five-p50-ms")
	b.ReportMetric(ms(mean(five)), "five-mean-ms")
	b.ReportMetric(float64(p50(five))/float64(max(1, p50(none))), "x-none")
}

func p50(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(10 * time.Microsecond)
}

func mean(ds []time.Duration) time.Duration {
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	return (total / time.Duration(len(ds))).Round(10 * time.Microsecond)
}

// startServer starts a server and returns it once it printed its handshake line, with the
// time that took.
func startServer(b *testing.B, args []string) (*exec.Cmd, time.Duration) {
	cmd := exec.Command(args[0], args[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		b.Fatalf("%v: no handshake: %v", args, err)
	}
	return cmd, time.Since(begin)
}
