package lsp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/lsp"
)

// bigModule writes a Go module of packages×files files (each package imports the previous
// one) and returns its root.
func bigModule(b *testing.B, packages, files int) string {
	b.Helper()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/big\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for p := range packages {
		dir := filepath.Join(root, fmt.Sprintf("p%02d", p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range files {
			var src strings.Builder
			fmt.Fprintf(&src, "package p%02d\n\n", p)
			if p > 0 && f == 0 {
				fmt.Fprintf(&src, "import \"example.com/big/p%02d\"\n\nvar _ = p%02d.F0_0\n\n", p-1, p-1)
			}
			for fn := range 5 {
				fmt.Fprintf(&src, "// F%d_%d adds.\nfunc F%d_%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn a + b + %d\n}\n\n", f, fn, f, fn, fn)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte(src.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkWriteToDiagnostics is the time from a write that breaks a file of a 1,000-file Go
// module to gopls's error for it (README, "Language servers"), next to the anchor of what an
// agent without a language server runs to find it: `go build` of the file's package.
func BenchmarkWriteToDiagnostics(b *testing.B) {
	if _, err := exec.LookPath("gopls"); err != nil {
		b.Skip("gopls is not installed (make deps installs it)")
	}
	root := bigModule(b, 50, 20)
	file := filepath.Join(root, "p49", "f10.go")
	clean, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	broken := strings.Replace(string(clean), "return a + b + 0", `return "x"`, 1)
	m := lsp.New(lsp.Config{})
	defer func() {
		if err := m.Close(); err != nil {
			b.Error(err)
		}
	}()
	ctx := context.Background()
	start := time.Now()
	if _, err := m.Diagnostics(ctx, []string{root}, []string{file}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(start)
	var diag, build time.Duration
	b.ResetTimer()
	for range b.N {
		if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		ds, err := m.Diagnostics(ctx, []string{root}, []string{file})
		diag += time.Since(t0)
		if err != nil || len(errorsOf(ds)) == 0 {
			b.Fatalf("no error after the break: %v, %v", ds, err)
		}
		b.StopTimer()
		cmd := exec.Command("go", "build", "./p49")
		cmd.Dir = root
		t0 = time.Now()
		if out, err := cmd.CombinedOutput(); err == nil {
			b.Fatalf("go build passed a broken package: %s", out)
		}
		build += time.Since(t0)
		if err := os.WriteFile(file, clean, 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Diagnostics(ctx, []string{root}, []string{file}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((diag / n).Milliseconds()), "ms-write-to-diagnostics")
	b.ReportMetric(float64((build / n).Milliseconds()), "ms-go-build")
	b.ReportMetric(float64(diag)/float64(build), "x-go-build")
	b.Logf("1,000-file module: first diagnostics (start and load) %v; write to diagnostics %v; go build of the package %v; ratio %.2f",
		first.Round(time.Millisecond), (diag / n).Round(time.Millisecond), (build / n).Round(time.Millisecond), float64(diag)/float64(build))
}
