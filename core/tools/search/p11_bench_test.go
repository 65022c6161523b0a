//go:build unix

package search

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/workspace"
)

// BenchmarkIndexedSearch is the in-process part of P11 in `make bench`: on CAIRN_P11_TREE
// (default $(go env GOROOT)/src) the cold index build (time, heap growth, source bytes), then
// for each P3 query the median of 9 warm indexed searches beside the median of 9 scans and,
// when ripgrep is installed, of 9 `rg --json --context 1` runs. Metrics: index-ms, scan-ms,
// rg-ms and x-rg (rg's time over the index's); and, as "memory", the index's bytes (heap
// growth plus the postings arena outside the heap) as index-MB, as %-of-source, and beside
// the target of a quarter of the source as x-quarter (>= 1 meets it). The daemon path
// through `cairn tool --connect` is not measured here.
func BenchmarkIndexedSearch(b *testing.B) {
	src := os.Getenv("CAIRN_P11_TREE")
	if src == "" {
		src = goSource(b)
	}
	ws, err := workspace.New(src)
	if err != nil {
		b.Skip(err)
	}
	rg, _ := exec.LookPath("rg")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	idx := testIndexes(b, time.Hour)
	ix := idx.For(ws.Root())
	if err := ix.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	files, source, postings, build := ix.Stats()
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	arena := int64(ix.postingBytes())
	var mem int64
	b.Logf("P11 index of %s: %d files, %d MB source, %d postings, built in %v, heap +%d MB, postings arena %d MB: %.1f%% of the source (goal <= 25%%)",
		src, files, source>>20, postings, build.Round(time.Millisecond), heap>>20, arena>>20, 100*float64(heap+arena)/float64(max(source, 1)))
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			mem = heap + int64(ix.postingBytes())
		}
		b.ReportMetric(float64(mem)/(1<<20), "index-MB")
		b.ReportMetric(100*float64(mem)/float64(max(source, 1)), "%-of-source")
		b.ReportMetric(float64(source)/4/float64(max(mem, 1)), "x-quarter")
	})
	const runs = 9
	median := func(f func()) time.Duration {
		var d []time.Duration
		for range runs {
			start := time.Now()
			f()
			d = append(d, time.Since(start))
		}
		slices.Sort(d)
		return d[runs/2]
	}
	for _, q := range append(slices.Clone(p3Queries), p11Queries...) {
		b.Run(q.name, func(b *testing.B) {
			search := func(idx *Indexes) func() {
				return func() {
					if _, err := Search(context.Background(), ws.Root(), Options{Regex: q.regex, Context: 1, Tree: ws, Indexes: idx}); err != nil {
						b.Fatal(err)
					}
				}
			}
			for b.Loop() {
				indexed := median(search(idx))
				scan := median(search(nil))
				b.ReportMetric(float64(indexed.Microseconds())/1000, "index-ms")
				b.ReportMetric(float64(scan.Microseconds())/1000, "scan-ms")
				if rg != "" {
					rgTime := median(func() {
						c := exec.Command(rg, "--json", "--context", "1", "-e", q.regex, ".")
						c.Dir = src
						_ = c.Run() // exit 1 means no match; only the time counts
					})
					b.ReportMetric(float64(rgTime.Microseconds())/1000, "rg-ms")
					b.ReportMetric(float64(rgTime)/float64(indexed), "x-rg")
				}
			}
		})
	}
}

// p11Queries are P11's cases beyond P3's: a regex whose literals are split by classes,
// repetitions and optional parts, as agents send them (docs/performance.md, "P11").
var p11Queries = []struct{ name, regex string }{
	{"split", `func \(\w+\) Handle\w*\b`},
}
