//go:build unix

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCheckpoint is the checkpoint figure of `make bench` on a generated 20,000-file
// workspace (a git repository with a nested one and 2,000 files in node_modules). One
// iteration runs a checkpoint manager's life on a fresh data dir: New (git init of the shadow
// repository), the first Commit (limit DefaultFirstTimeout), a Commit with nothing changed,
// a Commit after 10 edits, a Diff between two checkpoints and one against the working tree,
// and a Restore of the 10 files. Each step reports its wall time (STEP-ms) and the CPU time of
// the git processes it ran (STEP-git-cpu-ms, which does not depend on the machine's load).
func BenchmarkCheckpoint(b *testing.B) {
	isolateHome(b)
	ws := b.TempDir()
	const dirs, perDir = 200, 100
	line := strings.Repeat("x", 60) + "\n"
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < perDir; f++ {
			body := fmt.Sprintf("// file %d/%d\n%s", d, f, strings.Repeat(line, 10+f%40))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Excluded bulk the walk must not pay for.
	for i := 0; i < 2000; i++ {
		writeFiles(b, ws, map[string]string{fmt.Sprintf("node_modules/p%d/index.js", i): "module.exports = 1\n"})
	}
	writeFiles(b, ws, map[string]string{"nested/n.txt": "n\n"})
	userGit(b, filepath.Join(ws, "nested"), "init", "-q")
	userGit(b, ws, "init", "-q")

	ctx := context.Background()
	steps := []string{"new", "first-commit", "same-commit", "commit-10-edits", "diff-checkpoints", "diff-worktree", "restore"}
	wall := map[string]time.Duration{}
	cpu := map[string]time.Duration{}
	timeIt := func(name string, fn func() error) time.Duration {
		cpu0 := childCPU()
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		d := time.Since(start)
		wall[name] += d
		cpu[name] += childCPU() - cpu0
		return d
	}
	for b.Loop() {
		var m *Manager
		var c1, c2 string
		timeIt("new", func() (err error) {
			m, err = New(ctx, b.TempDir(), ws, WithFirstTimeout(0)) // measured whole; checked below
			return err
		})
		first := timeIt("first-commit", func() (err error) { c1, err = m.Commit(ctx, "first"); return err })
		timeIt("same-commit", func() (err error) { _, err = m.Commit(ctx, "same"); return err })
		for i := 0; i < 10; i++ {
			writeFiles(b, ws, map[string]string{fmt.Sprintf("pkg%03d/f000.go", i*7): "changed\n"})
		}
		timeIt("commit-10-edits", func() (err error) { c2, err = m.Commit(ctx, "ten"); return err })
		timeIt("diff-checkpoints", func() error {
			d, err := m.Diff(ctx, c1, c2)
			if err == nil && len(d) != 10 {
				err = fmt.Errorf("%d files", len(d))
			}
			return err
		})
		timeIt("diff-worktree", func() error { _, err := m.Diff(ctx, c2, ""); return err })
		timeIt("restore", func() error { return m.Restore(ctx, c1) })
		if w := m.Warnings(); len(w) != 0 {
			b.Logf("warnings: %q", w)
		}
		if first > DefaultFirstTimeout {
			b.Logf("NOTE: the first checkpoint took %s, over the %s limit: a task would have disabled checkpoints", first, DefaultFirstTimeout)
		}
		mustClose(b, m)
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average: %s", strings.TrimSpace(string(load)))
	}
	n := float64(b.N)
	for _, s := range steps {
		b.ReportMetric(float64(wall[s].Microseconds())/1000/n, s+"-ms")
		b.ReportMetric(float64(cpu[s].Microseconds())/1000/n, s+"-git-cpu-ms")
	}
}

// childCPU is the user+system time of finished child processes (the git runs).
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
