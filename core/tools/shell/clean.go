package shell

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cairnhq/cairn/core/lazy"
)

// maxHeld bounds how many bytes wait for the end of an escape sequence; a sequence that never
// ends (a broken program) is then stripped as it is instead of holding output back forever.
const maxHeld = 4096

// cleaner turns raw terminal output into plain text for the model and the chat, one chunk at
// a time: ANSI escape sequences and control characters are dropped and line ends become "\n"
// (a lone "\r", as in progress bars, starts a new line so nothing is overwritten unseen).
// Chunks may split escape sequences, UTF-8 runes and "\r\n" pairs anywhere, so the unfinished
// tail of a chunk is held until the next one (or flush) completes it.
type cleaner struct {
	held []byte
}

// write cleans the next chunk and returns the text that is final so far.
func (c *cleaner) write(b []byte) string {
	data := append(c.held, b...)
	cut := holdFrom(data)
	c.held = append([]byte(nil), data[cut:]...)
	return cleanText(data[:cut])
}

// flush returns whatever was held: the output ended.
func (c *cleaner) flush() string {
	data := c.held
	c.held = nil
	return cleanText(data)
}

// holdFrom returns the index where the unfinished tail of data starts (len(data) if none).
func holdFrom(data []byte) int {
	cut := len(data)
	// Trailing carriage returns: a "\n" may follow in the next chunk.
	for cut > 0 && data[cut-1] == '\r' {
		cut--
	}
	if i := bytes.LastIndexByte(data, 0x1b); i >= 0 && len(data)-i <= maxHeld && !escapeComplete(data[i:]) {
		cut = min(cut, i)
	}
	// A rune cut in the middle.
	for j := len(data) - 1; j >= 0 && j >= len(data)-utf8.UTFMax; j-- {
		if utf8.RuneStart(data[j]) {
			if !utf8.FullRune(data[j:]) {
				cut = min(cut, j)
			}
			break
		}
	}
	return cut
}

// escapeComplete reports whether s, which starts with ESC, holds a whole escape sequence.
func escapeComplete(s []byte) bool {
	if len(s) < 2 {
		return false
	}
	switch s[1] {
	case '[': // CSI: parameters, then a final byte in @..~
		for _, b := range s[2:] {
			if b >= 0x40 && b <= 0x7e {
				return true
			}
		}
		return false
	case ']', 'P', 'X', '^', '_': // strings (OSC, DCS, …) end with BEL or ESC \
		return bytes.IndexByte(s[2:], 0x07) >= 0
	default:
		if s[1] >= 0x20 && s[1] <= 0x2f { // ESC, intermediates, final byte
			return len(s) >= 3
		}
		return true
	}
}

// escapeSeq matches ECMA-48 escape sequences: CSI (colours, cursor moves), the string
// commands ending in BEL or ST (OSC titles and links, DCS, …) and two/three-byte escapes.
// A regexp instead of a terminal library: the one we used built width tables at start-up and
// cost the daemon 28 ms of init on every launch (P5, docs/performance.md).
var escapeSeq = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile("\x1b(?:\\[[0-?]*[ -/]*[@-~]|[\\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\\\)?|[ -/]*[0-~])")
}}

// cleanText strips escape sequences and control characters from a complete piece of output.
func cleanText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	s := string(b)
	if bytes.IndexByte(b, 0x1b) >= 0 { // most output has no escapes: skip the parser
		s = escapeSeq.Get().ReplaceAllString(s, "")
	}
	var out strings.Builder
	out.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\r':
			// "\r\n", "\r\r\n" (a program's own CRLF through the PTY) and a lone "\r" all end
			// exactly one line.
			for i+1 < len(s) && s[i+1] == '\r' {
				i++
			}
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			out.WriteByte('\n')
		case ch == '\n' || ch == '\t' || ch >= 0x20 && ch != 0x7f:
			out.WriteByte(ch)
		}
	}
	return out.String()
}
