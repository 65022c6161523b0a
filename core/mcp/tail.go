package mcp

import (
	"strings"
	"sync"
)

// tail keeps the last bytes written to it: a server's stderr, shown with its status.
type tail struct {
	max int
	// mu guards buf.
	mu  sync.Mutex
	buf []byte
}

func newTail(limit int) *tail { return &tail{max: limit} }

// Write implements io.Writer; it never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Reset forgets what was written (a new process starts).
func (t *tail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = t.buf[:0]
}

// String returns the kept text, starting at a line boundary when it was cut.
func (t *tail) String() string {
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
