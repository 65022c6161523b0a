//go:build unix

package search

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// p3Queries are the P3 searches (docs/performance.md): a literal, a regex with classes, a
// case-insensitive literal.
var p3Queries = []struct{ name, regex string }{
	{"literal", `func main`},
	{"classes", `[A-Z][a-z]+Error\(`},
	{"fold", `(?i)deadline`},
}

// BenchmarkP3 is the P3 figure of `make bench`: search_files as a user or a script meets it —
// the real `cairn tool` process, start included — beside `rg --json --context 1` on
// $(go env GOROOT)/src (the anchor), the two run alternately. One sub-benchmark a query; one
// iteration is 21 alternating rounds after a first one that warms the page cache and the
// binaries. Metrics are the medians over all rounds: wall-ms and cpu-ms (user+system of the
// process) of cairn, rg-wall-ms and rg-cpu-ms, and the ratios x-rg and x-rg-cpu. Target: wall
// ≤ 1.5× rg for every query (stretch 1.1×). CAIRN_P3_BEFORE may name an older cairn binary:
// it then runs in the same rotation and reports before-wall-ms and before-x-rg, so a change
// is measured against its baseline under the same load.
func BenchmarkP3(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep (rg) is not installed: apt-get install -y ripgrep to measure P3")
	}
	src := goSource(b)
	if _, err := os.Stat(src); err != nil {
		b.Skip("GOROOT/src not found")
	}
	bins := []struct{ name, path string }{{"cairn", buildCairn(b)}}
	if old := os.Getenv("CAIRN_P3_BEFORE"); old != "" {
		bins = append(bins, struct{ name, path string }{"before", old})
	}
	home := b.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH")}

	const runs = 21
	for _, q := range p3Queries {
		b.Run(q.name, func(b *testing.B) {
			call := fmt.Sprintf("<search_files>\n<path>.</path>\n<regex>%s</regex>\n</search_files>\n", q.regex)
			ours := make([][]sample, len(bins))
			var theirs []sample
			round := func(keep bool) {
				for i, bin := range bins {
					c := exec.Command(bin.path, "tool", "-C", src, "--yes")
					c.Stdin = strings.NewReader(call)
					c.Env = env
					s, out := timeRun(b, c, 0)
					if !bytes.HasPrefix(out, []byte("[search_files for '"+q.regex+"'] Result:\n")) || !bytes.Contains(out, []byte("│")) {
						b.Fatalf("%s: %s tool printed no results:\n%.500s", q.name, bin.name, out)
					}
					if keep {
						ours[i] = append(ours[i], s)
					}
				}
				r := exec.Command(rg, "--json", "--context", "1", "-e", q.regex, src)
				r.Env = env
				rs, rout := timeRun(b, r, 0)
				if !bytes.Contains(rout, []byte(`"type":"match"`)) {
					b.Fatalf("%s: rg found nothing", q.name)
				}
				if keep {
					theirs = append(theirs, rs)
				}
			}
			round(false) // warms the page cache and the binaries
			for b.Loop() {
				for range runs {
					round(true)
				}
			}
			rw, rc := medians(theirs)
			ow, oc := medians(ours[0])
			b.ReportMetric(ms(ow), "wall-ms")
			b.ReportMetric(ms(rw), "rg-wall-ms")
			b.ReportMetric(float64(ow)/float64(rw), "x-rg")
			b.ReportMetric(ms(oc), "cpu-ms")
			b.ReportMetric(ms(rc), "rg-cpu-ms")
			b.ReportMetric(float64(oc)/float64(max(rc, 1)), "x-rg-cpu")
			if len(bins) > 1 {
				bw, _ := medians(ours[1])
				b.ReportMetric(ms(bw), "before-wall-ms")
				b.ReportMetric(float64(bw)/float64(rw), "before-x-rg")
			}
		})
	}
}

type sample struct{ wall, cpu time.Duration }

// timeRun runs cmd to its end and returns its wall and CPU time and its standard output; an
// exit code other than 0 or want fails the test.
func timeRun(t testing.TB, cmd *exec.Cmd, want int) (sample, []byte) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != want) {
		t.Fatalf("%s: %v", cmd.Args, err)
	}
	return sample{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, out.Bytes()
}

func medians(s []sample) (wall, cpu time.Duration) {
	w := make([]time.Duration, len(s))
	c := make([]time.Duration, len(s))
	for i, x := range s {
		w[i], c[i] = x.wall, x.cpu
	}
	slices.Sort(w)
	slices.Sort(c)
	return w[len(w)/2], c[len(c)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// buildCairn builds the daemon binary the way `make daemon` does, into a temporary folder.
func buildCairn(t testing.TB) string {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	out := filepath.Join(t.TempDir(), "cairn")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "./server/cmd/cairn")
	cmd.Dir = strings.TrimSpace(string(root))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build cairn: %v\n%s", err, b)
	}
	return out
}
