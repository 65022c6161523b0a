//go:build unix

package search

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFinder scans the Go source of GOROOT/src/net, held in memory, for each query's
// literal, so the scan is measured apart from reading files. Exact literals also run
// bytes.Index as the yardstick.
func BenchmarkFinder(b *testing.B) {
	var texts [][]byte
	size := 0
	err := filepath.WalkDir(filepath.Join(goSource(b), "net"), func(p string, _ fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".go") {
			return err
		}
		t, err := os.ReadFile(p)
		texts, size = append(texts, t), size+len(t)
		return err
	})
	if err != nil || size == 0 {
		b.Skipf("GOROOT/src/net not readable: %v", err)
	}
	scan := func(index func([]byte) int) func(*testing.B) {
		return func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, t := range texts {
					for p := 0; ; p++ {
						i := index(t[p:])
						if i < 0 {
							break
						}
						p += i
					}
				}
			}
		}
	}
	for _, expr := range []string{`func main`, `Error\(`, `(?i)deadline`, `(?i)keepalive`} {
		f := requiredLiteral(expr)
		if !f.fold {
			b.Run("stdlib "+expr, scan(func(t []byte) int { return bytes.Index(t, f.lit) }))
		}
		b.Run(expr, scan(f.index))
	}
}
