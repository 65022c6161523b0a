// Package tailbuf keeps the last bytes a process wrote to stderr, to tell with its status or
// its failure: an MCP server's (core/mcp), the parsing helper's (core/tools/codedefs).
package tailbuf

import (
	"strings"
	"sync"
)

// Buffer keeps the last bytes written to it. It is safe for concurrent use.
type Buffer struct {
	max int
	// mu guards buf.
	mu  sync.Mutex
	buf []byte
}

// New returns a Buffer that keeps the last limit bytes.
func New(limit int) *Buffer { return &Buffer{max: limit} }

// Write implements io.Writer; it never fails.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Reset forgets what was written (a new process starts).
func (t *Buffer) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = t.buf[:0]
}

// String returns the kept text, starting at a line boundary when it was cut.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(t.buf) >= t.max {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}
