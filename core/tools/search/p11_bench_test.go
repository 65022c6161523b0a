//go:build unix

package search

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/workspace"
)

// BenchmarkIndexedSearch measures, in process, the warm index against the scan on
// CAIRN_P11_TREE (default $(go env GOROOT)/src) for the P3 queries: one sub-benchmark per
// query and mode, and the cold build time and heap growth reported once.
func BenchmarkIndexedSearch(b *testing.B) {
	src := os.Getenv("CAIRN_P11_TREE")
	if src == "" {
		src = goSource(b)
	}
	ws, err := workspace.New(src)
	if err != nil {
		b.Skip(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	idx := NewIndexes(time.Hour)
	defer idx.Close()
	ix := idx.For(ws.Root())
	if err := ix.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	files, source, postings, build := ix.Stats()
	b.Logf("index of %s: %d files, %d MB source, %d postings, built in %v, heap +%d MB",
		src, files, source>>20, postings, build.Round(time.Millisecond), (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20)
	for _, q := range p3Queries {
		for _, mode := range []string{"scan", "index"} {
			b.Run(q.name+"/"+mode, func(b *testing.B) {
				opts := Options{Regex: q.regex, Context: 1, Tree: ws}
				if mode == "index" {
					opts.Indexes = idx
				}
				for b.Loop() {
					if _, err := Search(context.Background(), ws.Root(), opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
