package shell

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func plainNote(lines int, size int64) string { return fmt.Sprintf("[%d lines, %d bytes]", lines, size) }

func TestView(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		name         string
		lines, bytes int
		text         string
		want         string
	}{
		{"empty", 4, 100, "", ""},
		{"fits", 4, 100, "a\nb\nc\n", "a\nb\nc\n"},
		{"fits without last newline", 4, 100, "a\nb\nc\nd", "a\nb\nc\nd"},
		{"line cap", 4, 100, "1\n2\n3\n4\n5\n6\n7\n", "1\n2\n[3 lines, 6 bytes]\n6\n7\n"},
		{"line cap, unfinished last line", 4, 100, "1\n2\n3\n4\n5\n6\n7", "1\n2\n[3 lines, 6 bytes]\n6\n7"},
		{"one line keeps the end", 1, 100, "1\n2\n3", "[2 lines, 4 bytes]\n3"},
		{"byte cap cuts at line ends", 100, 20, "aaaa\nbbbb\ncccc\ndddd\neeee\nffff\n", "aaaa\nbbbb\n[2 lines, 10 bytes]\neeee\nffff\n"},
		{"one long line keeps both ends", 10, 20, long, long[:10] + "\n[0 lines, 80 bytes]\n" + long[:10]},
		{"long line between short ones", 10, 20, "a\n" + long + "\nz\n", "a\n[1 lines, 101 bytes]\nz\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunk := range []int{1, 3, 64, len(c.text) + 1} {
				v := newView(c.lines, c.bytes)
				for rest := c.text; rest != ""; {
					n := min(chunk, len(rest))
					v.write([]byte(rest[:n]))
					rest = rest[n:]
				}
				if got := v.render(plainNote); got != c.want {
					t.Errorf("chunks of %d: got %q, want %q", chunk, got, c.want)
				}
			}
		})
	}
}

// Cuts inside a long line never split a rune.
func TestViewKeepsRunesWhole(t *testing.T) {
	text := strings.Repeat("é", 1000) // 2 bytes each
	for _, limit := range []int{11, 13, 101} {
		v := newView(10, limit)
		v.write([]byte(text))
		if got := v.render(plainNote); !utf8.ValidString(got) {
			t.Errorf("limit %d: invalid UTF-8 in %q", limit, got)
		}
	}
}

// However much is written, the view stays within about twice its caps, and rendering within
// the caps plus the note.
func TestViewIsBounded(t *testing.T) {
	v := newView(500, 50_000)
	line := []byte(strings.Repeat("0123456789", 7) + "\n")
	for range 200_000 { // 14 MB
		v.write(line)
		if held := len(v.head) + len(v.tail); held > 2*50_000+len(line) {
			t.Fatalf("holds %d bytes", held)
		}
	}
	out := v.render(plainNote)
	if len(out) > 50_000+100 || strings.Count(out, "\n") > 501 {
		t.Errorf("rendered %d bytes, %d lines", len(out), strings.Count(out, "\n"))
	}
	if v.total != 200_000*int64(len(line)) || v.omittedBytes+int64(len(v.head)+len(v.tail)) != v.total {
		t.Errorf("total %d, omitted %d, kept %d", v.total, v.omittedBytes, len(v.head)+len(v.tail))
	}
}
