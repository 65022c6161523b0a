package shell

import "testing"

var cleanCases = []struct {
	name, in, want string
}{
	{"plain", "hello\nworld", "hello\nworld"},
	{"pty line ends", "a\r\nb\r\n", "a\nb\n"},
	{"program crlf through pty", "a\r\r\nb", "a\nb"},
	{"progress bar", "10%\r20%\r100%\n", "10%\n20%\n100%\n"},
	{"colours", "\x1b[1;31mERR\x1b[0m ok", "ERR ok"},
	{"title with bel", "\x1b]0;title\x07text", "text"},
	{"osc with st", "\x1b]633;C\x1b\\out", "out"},
	{"cursor moves", "\x1b[2K\x1b[1Gdone", "done"},
	{"charset switch", "\x1b(Bx", "x"},
	{"controls", "a\x07b\x08c\x00d\te\x7f", "abcd\te"},
	{"utf8", "héllo ✓ 日本", "héllo ✓ 日本"},
	{"trailing cr", "end\r", "end\n"},
}

func TestCleanWhole(t *testing.T) {
	for _, c := range cleanCases {
		t.Run(c.name, func(t *testing.T) {
			var cl cleaner
			if got := cl.write([]byte(c.in)) + cl.flush(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// Output arrives in arbitrary chunks: every split must give the same text as the whole.
func TestCleanSplitAnywhere(t *testing.T) {
	for _, c := range cleanCases {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i <= len(c.in); i++ {
				var cl cleaner
				got := cl.write([]byte(c.in[:i])) + cl.write([]byte(c.in[i:])) + cl.flush()
				if got != c.want {
					t.Errorf("split at %d: got %q, want %q", i, got, c.want)
				}
			}
			var cl cleaner
			got := ""
			for i := range len(c.in) {
				got += cl.write([]byte{c.in[i]})
			}
			if got += cl.flush(); got != c.want {
				t.Errorf("byte by byte: got %q, want %q", got, c.want)
			}
		})
	}
}

// A sequence that never ends must not hold output back without bound.
func TestCleanUnterminatedEscapeIsBounded(t *testing.T) {
	var cl cleaner
	cl.write([]byte("\x1b]0;"))
	for range maxHeld {
		cl.write([]byte("x"))
	}
	if len(cl.held) > maxHeld {
		t.Errorf("held %d bytes, want at most %d", len(cl.held), maxHeld)
	}
}

func BenchmarkClean(b *testing.B) {
	chunk := []byte("\x1b[32mPASS\x1b[0m ok  \tgithub.com/example/pkg\t0.123s\r\n")
	for len(chunk) < 32*1024 {
		chunk = append(chunk, chunk...)
	}
	b.SetBytes(int64(len(chunk)))
	var cl cleaner
	for b.Loop() {
		cl.write(chunk)
	}
}

func BenchmarkCleanPlain(b *testing.B) {
	chunk := []byte("ok  \tgithub.com/example/pkg\t0.123s\r\n")
	for len(chunk) < 32*1024 {
		chunk = append(chunk, chunk...)
	}
	b.SetBytes(int64(len(chunk)))
	var cl cleaner
	for b.Loop() {
		cl.write(chunk)
	}
}
