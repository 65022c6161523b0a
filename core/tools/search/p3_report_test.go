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

// p3Queries are the spec P3 searches: a literal, a regex with classes, a case-insensitive
// literal.
var p3Queries = []struct{ name, regex string }{
	{"literal", `func main`},
	{"classes", `[A-Z][a-z]+Error\(`},
	{"fold", `(?i)deadline`},
}

// TestP3Report prints spec P3 when CAIRN_BENCH=1 (`make bench`): search_files as a user or a
// script meets it — the real `cairn tool` process, start included — beside
// `rg --json --context 1` on $(go env GOROOT)/src, the two run alternately in the same run.
// It prints the medians of repeated runs and their ratio per query, for wall and CPU time.
// CAIRN_P3_BEFORE may name an older cairn binary: it then runs in the same rotation, so a
// change is measured against its baseline under the same load.
func TestP3Report(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") == "" {
		t.Skip("set CAIRN_BENCH=1 (make bench) to print P3")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed: apt-get install -y ripgrep to print P3")
	}
	src := goSource(t)
	if _, err := os.Stat(src); err != nil {
		t.Skip("GOROOT/src not found")
	}
	bins := []struct{ name, path string }{{"cairn", buildCairn(t)}}
	if old := os.Getenv("CAIRN_P3_BEFORE"); old != "" {
		bins = append(bins, struct{ name, path string }{"before", old})
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH")}

	const runs = 21
	fmt.Printf("\nP3 search_files — `cairn tool` (process start included) vs `rg --json --context 1` on %s\n", src)
	fmt.Printf("medians of %d alternating runs; CPU is user+system of the process\n", runs)
	fmt.Printf("%-9s %-7s %10s %10s %7s %10s %10s %7s\n", "query", "binary", "wall", "rg wall", "ratio", "CPU", "rg CPU", "ratio")
	for _, q := range p3Queries {
		call := fmt.Sprintf("<search_files>\n<path>.</path>\n<regex>%s</regex>\n</search_files>\n", q.regex)
		ours := make([][]sample, len(bins))
		var theirs []sample
		for i := range runs + 1 {
			for b, bin := range bins {
				c := exec.Command(bin.path, "tool", "-C", src, "--yes")
				c.Stdin = strings.NewReader(call)
				c.Env = env
				s, out := timeRun(t, c, 0)
				if !bytes.HasPrefix(out, []byte("[search_files for '"+q.regex+"'] Result:\n")) || !bytes.Contains(out, []byte("│")) {
					t.Fatalf("%s: %s tool printed no results:\n%.500s", q.name, bin.name, out)
				}
				if i > 0 { // the first round warms the page cache and the binaries
					ours[b] = append(ours[b], s)
				}
			}
			r := exec.Command(rg, "--json", "--context", "1", "-e", q.regex, src)
			r.Env = env
			rs, rout := timeRun(t, r, 0)
			if !bytes.Contains(rout, []byte(`"type":"match"`)) {
				t.Fatalf("%s: rg found nothing", q.name)
			}
			if i > 0 {
				theirs = append(theirs, rs)
			}
		}
		rw, rc := medians(theirs)
		for b, bin := range bins {
			ow, oc := medians(ours[b])
			fmt.Printf("%-9s %-7s %7.1f ms %7.1f ms %6.2f× %7.1f ms %7.1f ms %6.2f×\n", q.name, bin.name,
				ms(ow), ms(rw), float64(ow)/float64(rw), ms(oc), ms(rc), float64(oc)/float64(max(rc, 1)))
		}
	}
	fmt.Printf("target: wall ≤ 1.5× rg for every query (stretch 1.1×)\n")
}

type sample struct{ wall, cpu time.Duration }

// timeRun runs cmd to its end and returns its wall and CPU time and its standard output; an
// exit code other than 0 or want fails the test.
func timeRun(t *testing.T, cmd *exec.Cmd, want int) (sample, []byte) {
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
func buildCairn(t *testing.T) string {
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
