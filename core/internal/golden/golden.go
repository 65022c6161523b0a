// Package golden compares a test's output with a file kept under the package's testdata, or,
// when the test binary runs with -update, rewrites the file with the output instead. Only
// tests import it. Every golden test of core shares the one -update flag defined here, so
// `go test ./core/... -update` rewrites them all and a review of the diff decides whether
// the change is meant.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (and golden sections of txtar archives) with what the tests produce")

// Update reports whether the test binary runs with -update. Tests that keep their expectations
// inside a txtar archive read it to rewrite their sections themselves.
func Update() bool { return *update }

// File compares got with the file at path. Under -update it writes got to path first,
// creating the folder, and the comparison then passes. A difference fails the test with the
// first line that differs and the whole output, enough to see what moved.
func File(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run the test with -update and review the diff)\n%s\n--- got ---\n%s", path, FirstDiff(string(want), got), got)
	}
}

// FirstDiff names the first line where got differs from want and shows both versions of it,
// or returns "" when they are equal.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		w, g := "(no line)", "(no line)"
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return ""
}
