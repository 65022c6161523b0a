// Package lazy holds package-level values built on their first use. A Value is declared as a
// composite literal, which the compiler lays out in the executable, so declaring one runs no
// code when a process starts; sync.OnceValue, a map literal or regexp.MustCompile at package
// level each add to the package's initialiser, and every package initialiser runs in every
// process of the binary, the daemon's and the sandbox launcher's, touching its part of the
// code before main (docs/performance.md, "P5 — the daemon at rest").
package lazy

import "sync"

// Value is the value New returns, built on the first Get, as sync.OnceValue(New) would: a
// New that panics panics again on every Get. New must not capture variables (a closure that
// captures is built at start), and must not call Get of the same Value.
//
//	var pattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
//		return regexp.MustCompile(`a+b`)
//	}}
type Value[T any] struct {
	New func() T

	once     sync.Once
	v        T
	panicked any // what New panicked with, or nil
}

// Get returns the value, building it on the first call. Calls from several goroutines wait
// for the one that builds it; later calls cost one atomic load.
func (l *Value[T]) Get() T {
	l.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				l.panicked = r
				panic(r)
			}
		}()
		l.v = l.New()
	})
	if l.panicked != nil {
		panic(l.panicked)
	}
	return l.v
}
