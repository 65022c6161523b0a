//go:build unix

package listfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/watch"
	"github.com/cairnhq/cairn/core/workspace"
)

// benchTree returns a generated tree of 20,000 files in 1,111 folders (plus a gitignored
// folder and a node_modules), cached under os.TempDir between runs.
func benchTree(b *testing.B) string {
	dir := filepath.Join(os.TempDir(), "cairn-bench-listfiles-20k")
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil { // a run that stopped half-way
		b.Fatal(err)
	}
	write := func(rel string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("generated/x.go")
	write("node_modules/m/index.js")
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("generated/\n*.tmp\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		for j := range 10 {
			for k := range 10 {
				for f := range 20 {
					write(fmt.Sprintf("pkg%d/mod%d/part%d/file%02d.go", i, j, k, f))
				}
			}
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkListing is list_files on a 20,000-file tree read from the disk and from the root's
// file list, alternately in the same run: the whole tree (no cap), the tool's capped listing
// and a flat one. It reports each one's time per listing and the disk's over the list's.
func BenchmarkListing(b *testing.B) {
	dir := benchTree(b)
	ws, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	hub := watch.New()
	defer func() {
		if err := hub.Close(); err != nil {
			b.Error(err)
		}
	}()
	lists := workspace.NewLists(hub)
	defer lists.Close()
	fl, err := lists.Open(context.Background(), ws.Root())
	if err != nil {
		b.Fatal(err)
	}
	defer fl.Release()
	for _, bc := range []struct {
		name      string
		recursive bool
		limit     int
	}{{"all", true, 1 << 30}, {"capped", true, DefaultLimit}, {"flat", false, DefaultLimit}} {
		b.Run(bc.name, func(b *testing.B) {
			var disk, list time.Duration
			var n int
			for b.Loop() {
				for _, t := range []Tree{ws, Listed{Tree: ws, Lists: lists}} {
					start := time.Now()
					entries, _, err := List(context.Background(), t, ws.Root(), bc.recursive, bc.limit)
					if err != nil {
						b.Fatal(err)
					}
					if _, ok := t.(Listed); ok {
						list += time.Since(start)
						if len(entries) != n {
							b.Fatalf("%d entries from the list, %d from the disk", len(entries), n)
						}
					} else {
						disk += time.Since(start)
						n = len(entries)
					}
				}
			}
			b.ReportMetric(float64(n), "entries")
			b.ReportMetric(float64(disk.Microseconds())/1000/float64(b.N), "disk-ms")
			b.ReportMetric(float64(list.Microseconds())/1000/float64(b.N), "list-ms")
			b.ReportMetric(float64(disk)/float64(list), "x-disk")
		})
	}
}
