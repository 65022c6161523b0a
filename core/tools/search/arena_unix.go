//go:build unix

package search

import (
	"runtime"
	"syscall"
)

// arena is a byte buffer outside the garbage-collected heap, for the frozen postings
// (postings.go): the collector lets the heap grow to twice what it holds live (GOGC) before it
// collects, so postings on the heap would cost the daemon about twice their size; mapped
// memory costs its size, and the pages never written cost nothing. An arena grows by mapping
// a larger region; it is unmapped by free, or by the collector once nothing refers to it.
type arena struct {
	mapped []byte // the whole mapping (nil before the first write)
	n      int    // bytes written
	// heap: mapped is a heap slice (the system refused a mapping), which is never unmapped.
	heap    bool
	cleanup runtime.Cleanup
}

// newArena returns an empty arena that can take reserve bytes before it must grow.
func newArena(reserve int) *arena {
	a := &arena{}
	a.remap(reserve)
	return a
}

// bytes returns the bytes written; valid until the arena grows or is freed.
func (a *arena) bytes() []byte { return a.mapped[:a.n] }

// append writes p at the end.
func (a *arena) append(p []byte) {
	if a.n+len(p) > len(a.mapped) {
		a.remap(max(2*len(a.mapped), a.n+len(p)))
	}
	a.n += copy(a.mapped[a.n:], p)
}

// remap moves the bytes to a new mapping of size bytes (at least one page).
func (a *arena) remap(size int) {
	size = max(size, syscall.Getpagesize())
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		// Out of address space: the heap will do (and the old bytes move with it).
		m = make([]byte, size)
	}
	n := a.n
	copy(m, a.mapped[:n])
	a.free()
	a.mapped, a.n, a.heap = m, n, err != nil
	if err == nil {
		a.cleanup = runtime.AddCleanup(a, unmap, m)
	}
}

// free unmaps the arena at once; nothing may read it afterwards. Readers hold the index's
// read lock, which keeps the index, and so the arena, reachable while they decode; free is
// called under its write lock.
func (a *arena) free() {
	a.cleanup.Stop()
	a.cleanup = runtime.Cleanup{}
	if a.mapped != nil && !a.heap {
		unmap(a.mapped)
	}
	a.mapped, a.n, a.heap = nil, 0, false
}

// unmap returns a mapping made by Mmap; it fails only for a range that is not one (EINVAL),
// which free never passes.
func unmap(m []byte) {
	_ = syscall.Munmap(m)
}
