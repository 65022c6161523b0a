//go:build !unix

package search

// arena is a byte buffer for the frozen postings (postings.go). Where memory cannot be
// mapped outside the garbage-collected heap with the standard library, it is a heap slice.
type arena struct {
	b []byte
}

// newArena returns an empty arena that can take reserve bytes before it must grow.
func newArena(reserve int) *arena { return &arena{b: make([]byte, 0, reserve)} }

// bytes returns the bytes written; valid until the arena grows or is freed.
func (a *arena) bytes() []byte { return a.b }

// append writes p at the end.
func (a *arena) append(p []byte) { a.b = append(a.b, p...) }

// free drops the bytes.
func (a *arena) free() { a.b = nil }
