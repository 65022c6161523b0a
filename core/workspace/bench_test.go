//go:build unix

package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// benchTree returns a generated tree of 100,000 files in 1,111 folders (plus a gitignored
// folder and a node_modules), cached under os.TempDir between runs.
func benchTree(b *testing.B) string {
	dir := filepath.Join(os.TempDir(), "cairn-bench-tree-100k")
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	// A run that stopped half-way left a partial tree: start it over.
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	writeTree(b, dir, map[string]string{
		".gitignore": "generated/\n*.tmp\n", "generated/x.go": "", "node_modules/m/index.js": "",
	})
	for i := range 10 {
		for j := range 10 {
			for k := range 10 {
				leaf := filepath.Join(dir, fmt.Sprintf("pkg%d/mod%d/part%d", i, j, k))
				if err := os.MkdirAll(leaf, 0o755); err != nil {
					b.Fatal(err)
				}
				for f := range 100 {
					name := filepath.Join(leaf, fmt.Sprintf("file%03dHandler.go", f))
					if err := os.WriteFile(name, nil, 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// goSource is $(go env GOROOT)/src of the go command running the benchmark (go test puts
// it first in PATH).
func goSource(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// BenchmarkListing is P4 (docs/performance.md): an ignore-aware walk of every file (the listing
// primitive) and a full index build, next to `rg --files` on the same tree in the same run.
func BenchmarkListing(b *testing.B) {
	trees := map[string]string{"tree100k": benchTree(b), "gosrc": goSource(b)}
	for _, name := range []string{"tree100k", "gosrc"} {
		dir := trees[name]
		ws := newWS(b, dir)
		b.Run(name+"/walk", func(b *testing.B) {
			var n atomic.Int64
			cpu0 := cpuTime()
			for b.Loop() {
				n.Store(0)
				err := ws.Walk(context.Background(), dir, IndexOptions, 0, func(string, fs.DirEntry, *Filter) error {
					n.Add(1)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			report(b, dir, int(n.Load()), cpu0)
		})
		b.Run(name+"/index", func(b *testing.B) {
			var n int
			cpu0 := cpuTime()
			hub := testHub(b)
			for b.Loop() {
				// Lists of their own each time: the benchmark measures the scan.
				lists := NewLists(hub)
				ix, err := NewIndex(context.Background(), ws, lists)
				if err != nil {
					b.Fatal(err)
				}
				n = ix.Len()
				mustClose(b, ix)
				lists.Close()
			}
			report(b, dir, n, cpu0)
		})
		b.Run(name+"/search-files", func(b *testing.B) {
			// The search index's file set from a list of its own (ripgrep's rules, as rg
			// --files): the list's scan, then the view it works out when first asked.
			var n int
			cpu0 := cpuTime()
			hub := testHub(b)
			for b.Loop() {
				lists := NewLists(hub)
				fl, err := lists.Open(context.Background(), ws.Root())
				if err != nil {
					b.Fatal(err)
				}
				n = len(fl.Files(b.Context(), SearchView))
				fl.Release()
				lists.Close()
			}
			report(b, dir, n, cpu0)
		})
	}
}

// cpuTime is this process's user+system CPU time in ms: steadier than wall time on a
// shared machine.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// report adds the entry count, our CPU time per run since cpu0, and rg --files' best wall
// and CPU time of 5 runs with the ratios.
func report(b *testing.B, dir string, n int, cpu0 float64) {
	ourCPU := (cpuTime() - cpu0) / float64(b.N)
	b.ReportMetric(float64(n), "entries")
	b.ReportMetric(ourCPU, "cpu-ms")
	rg, err := exec.LookPath("rg")
	if err != nil {
		return
	}
	var best, bestCPU float64
	var count int
	for range 5 {
		cmd := exec.Command(rg, "--files", "--no-require-git", dir)
		cmd.Env = []string{"HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH")}
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		_ = cmd.Run()
		ms := float64(time.Since(start).Microseconds()) / 1000
		if best == 0 || ms < best {
			best = ms
		}
		cpu := float64((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Microseconds()) / 1000
		if bestCPU == 0 || cpu < bestCPU {
			bestCPU = cpu
		}
		count = bytes.Count(out.Bytes(), []byte{'\n'})
	}
	ours := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(best, "rg-files-ms")
	b.ReportMetric(float64(count), "rg-files")
	b.ReportMetric(ours/best, "x-rg")
	if bestCPU > 0 {
		b.ReportMetric(ourCPU/bestCPU, "x-rg-cpu")
	}
}

// BenchmarkQuery is P4's warm query latency on the 100k-file index (target < 20 ms).
func BenchmarkQuery(b *testing.B) {
	dir := benchTree(b)
	ix, err := NewIndex(context.Background(), newWS(b, dir), testLists(b))
	if err != nil {
		b.Fatal(err)
	}
	defer mustClose(b, ix)
	ix.Query("warm", 1) // the first query after a change builds the sorted snapshot
	for _, q := range []string{"file042", "p3m7handler", "pkg9/mod9/part9/file099Handler.go", "zzz", "e"} {
		b.Run(q, func(b *testing.B) {
			var got []Match
			for b.Loop() {
				got = ix.Query(q, DefaultQueryLimit)
			}
			if len(got) > 0 && !slices.ContainsFunc(got, func(m Match) bool { return m.Score > 0 }) {
				b.Fatalf("no positive score for %q", q)
			}
		})
	}
}
