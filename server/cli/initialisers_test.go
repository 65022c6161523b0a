package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Cairn's own packages run nothing when a process of the binary starts: their tables, texts and
// patterns are built on first use (core/lazy). Package initialisers run in every process of the
// binary, the daemon's and the sandbox launcher's, and each touches its part of the code before
// main (docs/performance.md, "P5 — the daemon at rest"). The runtime's own report of them
// (GODEBUG=inittrace=1) names every package whose initialiser did any work. Three may: the
// generated protobuf packages register their descriptors, core/sandbox's launcher must run
// before main, and core/task re-exports its parts' errors (a variable copied from another
// package is copied at start; it allocates nothing).
func TestNoInitialisers(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	const own = "github.com/cairnhq/cairn/"
	var seen int
	var found []string
	for line := range strings.Lines(string(out)) {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		seen++
		pkg, ok := strings.CutPrefix(f[1], own)
		if !ok || strings.HasPrefix(pkg, "server/internal/gen/") || pkg == "core/sandbox" || pkg == "core/task" {
			continue
		}
		found = append(found, strings.TrimSpace(line))
	}
	if seen == 0 {
		t.Fatalf("no initialiser reported; output:\n%s", out)
	}
	if len(found) > 0 {
		t.Errorf("these packages of Cairn run an initialiser; build their values on first use (core/lazy):\n%s",
			strings.Join(found, "\n"))
	}
}
