package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that keeps the failures instead of failing the real test, so the
// test can check that File reports a difference. Fatal stops the calling goroutine, as the
// real one does.
type recorder struct {
	testing.TB
	errors, fatals int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }
func (r *recorder) Fatalf(string, ...any) { r.fatals++; panic(r) }
func (r *recorder) Fatal(...any)          { r.fatals++; panic(r) }
func run(r *recorder, f func(testing.TB)) {
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
	}()
	f(r)
}

func TestFileComparesAndUpdates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")

	r := &recorder{TB: t}
	run(r, func(tb testing.TB) { File(tb, path, "one\n") })
	if r.fatals != 1 {
		t.Fatalf("a missing golden file must fail the test: %+v", r)
	}

	*update = true
	r = &recorder{TB: t}
	run(r, func(tb testing.TB) { File(tb, path, "one\ntwo\n") })
	*update = false
	if r.errors+r.fatals != 0 {
		t.Fatalf("-update must write and pass: %+v", r)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}

	r = &recorder{TB: t}
	run(r, func(tb testing.TB) { File(tb, path, "one\ntwo\n") })
	if r.errors+r.fatals != 0 {
		t.Fatalf("the same output must pass: %+v", r)
	}
	r = &recorder{TB: t}
	run(r, func(tb testing.TB) { File(tb, path, "one\nthree\n") })
	if r.errors != 1 {
		t.Fatalf("a different output must fail: %+v", r)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Fatalf("a comparison without -update must not write: %q", b)
	}
}

func TestFirstDiff(t *testing.T) {
	if d := FirstDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Fatalf("equal texts: %q", d)
	}
	if d := FirstDiff("a\nb\nc", "a\nx\nc"); d != "line 2:\n  want: b\n  got:  x" {
		t.Fatalf("got %q", d)
	}
	if d := FirstDiff("a", "a\nmore"); d != "line 2:\n  want: (no line)\n  got:  more" {
		t.Fatalf("got %q", d)
	}
}
