//go:build unix

package search

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSearchGoSource is P3 (docs/performance.md): search_files on $(go env GOROOT)/src next to
// ripgrep's wall time for the same search in the same run. Both report every match (no 300 cap) so
// the work is the same; rg runs with --no-require-git because we apply .gitignore files outside git
// repositories too.
func BenchmarkSearchGoSource(b *testing.B) {
	src := goSource(b)
	if _, err := os.Stat(src); err != nil {
		b.Skip("GOROOT/src not found")
	}
	for _, bc := range []struct{ name, regex string }{
		{"literal", `func main`},
		{"classes", `[A-Z][a-z]+Error\(`},
		{"fold", `(?i)deadline`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var n int
			cpu0 := cpuTime()
			for b.Loop() {
				res, err := Search(context.Background(), src, Options{Regex: bc.regex, MaxResults: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				n = res.Total
			}
			ourCPU := (cpuTime() - cpu0) / float64(b.N)
			b.ReportMetric(float64(n), "matches")
			b.ReportMetric(ourCPU, "cpu-ms")
			ours := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
			if rgMs, rgCPU, rgN, ok := ripgrepTime(b, src, bc.regex); ok {
				b.ReportMetric(rgMs, "rg-ms")
				b.ReportMetric(rgCPU, "rg-cpu-ms")
				b.ReportMetric(float64(rgN), "rg-matches")
				b.ReportMetric(ours/rgMs, "x-rg-wall")
				b.ReportMetric(ourCPU/rgCPU, "x-rg-cpu")
			}
		})
	}
}

// goSource is $(go env GOROOT)/src of the go command running the benchmark (go test puts
// it first in PATH).
func goSource(b testing.TB) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// cpuTime is this process's user+system CPU time in ms. On a shared machine wall time swings
// with the neighbours' load; CPU time is the steadier comparison.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// ripgrepTime returns rg's best wall time and CPU time of 5 runs in ms and its match count.
func ripgrepTime(b *testing.B, dir, regex string) (wall, cpu float64, count int, ok bool) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		return 0, 0, 0, false
	}
	var times, cpus []float64
	for range 5 {
		cmd := exec.Command(rg, "-n", "--no-heading", "--no-messages", "--no-require-git", "-e", regex, dir)
		cmd.Env = []string{"HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH")}
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		_ = cmd.Run()
		times = append(times, float64(time.Since(start).Microseconds())/1000)
		cpus = append(cpus, float64((cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()).Microseconds())/1000)
		count = bytes.Count(out.Bytes(), []byte{'\n'})
	}
	return slices.Min(times), slices.Min(cpus), count, true
}
