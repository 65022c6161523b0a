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

// TestCheckpointReport prints checkpoint timings on a generated 20,000-file workspace (a git
// repository with a nested one and a node_modules folder). Set CAIRN_BENCH=1 to run it; it
// prints wall and git CPU time (the CPU figure does not depend on the machine's load) and
// fails only when an operation fails.
func TestCheckpointReport(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") != "1" {
		t.Skip("set CAIRN_BENCH=1 to print checkpoint timings")
	}
	isolateHome(t)
	ws := t.TempDir()
	const dirs, perDir = 200, 100
	line := strings.Repeat("x", 60) + "\n"
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < perDir; f++ {
			body := fmt.Sprintf("// file %d/%d\n%s", d, f, strings.Repeat(line, 10+f%40))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Excluded bulk the walk must not pay for.
	for i := 0; i < 2000; i++ {
		writeFiles(t, ws, map[string]string{fmt.Sprintf("node_modules/p%d/index.js", i): "module.exports = 1\n"})
	}
	writeFiles(t, ws, map[string]string{"nested/n.txt": "n\n"})
	userGit(t, filepath.Join(ws, "nested"), "init", "-q")
	userGit(t, ws, "init", "-q")

	ctx := context.Background()
	timeIt := func(name string, fn func() error) time.Duration {
		cpu0 := childCPU()
		start := time.Now()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := time.Since(start)
		t.Logf("%-44s %8.1f ms wall %8.1f ms git CPU", name, float64(d.Microseconds())/1000,
			float64((childCPU()-cpu0).Microseconds())/1000)
		return d
	}
	var m *Manager
	var c1, c2 string
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load average: %s", strings.TrimSpace(string(load)))
	t.Logf("workspace: %d tracked files in %d folders + 2,000 in node_modules + a nested repository", dirs*perDir, dirs)
	timeIt("New (git init of the shadow repository)", func() (err error) {
		m, err = New(ctx, t.TempDir(), ws, WithFirstTimeout(0)) // measured whole; checked below
		return err
	})
	defer mustClose(t, m)
	first := timeIt("first Commit (limit 15 s)", func() (err error) { c1, err = m.Commit(ctx, "first"); return err })
	timeIt("Commit with nothing changed", func() (err error) { _, err = m.Commit(ctx, "same"); return err })
	for i := 0; i < 10; i++ {
		writeFiles(t, ws, map[string]string{fmt.Sprintf("pkg%03d/f000.go", i*7): "changed\n"})
	}
	timeIt("Commit after 10 edits", func() (err error) { c2, err = m.Commit(ctx, "ten"); return err })
	timeIt("Diff between two checkpoints (10 files)", func() error {
		d, err := m.Diff(ctx, c1, c2)
		if err == nil && len(d) != 10 {
			err = fmt.Errorf("%d files", len(d))
		}
		return err
	})
	timeIt("Diff checkpoint vs working tree", func() error { _, err := m.Diff(ctx, c2, ""); return err })
	timeIt("Restore (10 files back)", func() error { return m.Restore(ctx, c1) })
	t.Logf("warnings: %q", m.Warnings())
	if first > DefaultFirstTimeout {
		t.Logf("NOTE: the first checkpoint took %s, over the %s limit: a task would have disabled checkpoints", first, DefaultFirstTimeout)
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
