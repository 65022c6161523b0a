package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

// built counts the builds of counted; runs the runs of TestBuiltOnceOnFirstUse.
var built, runs atomic.Int32

var counted = Value[map[string]int]{New: func() map[string]int {
	built.Add(1)
	return map[string]int{"a": 1}
}}

// The value is built once, on the first Get, however many goroutines ask at the same time.
func TestBuiltOnceOnFirstUse(t *testing.T) {
	// The first run of the test is the process's first Get (go test -count=N runs it again).
	first := runs.Add(1) == 1
	if n := built.Load(); first && n != 0 {
		t.Fatalf("built %d times before the first Get", n)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := counted.Get()["a"]; got != 1 {
				t.Errorf("Get()[a] = %d", got)
			}
		})
	}
	wg.Wait()
	if n := built.Load(); n != 1 {
		t.Errorf("built %d times, want 1", n)
	}
}

var broken = Value[int]{New: func() int { panic("no value") }}

// A New that panics panics again on every Get, as sync.OnceValue does, rather than leaving a
// zero value behind.
func TestPanicsEveryTime(t *testing.T) {
	for range 2 {
		func() {
			defer func() {
				if r := recover(); r != "no value" {
					t.Errorf("recovered %v, want the panic of New", r)
				}
			}()
			broken.Get()
		}()
	}
}
