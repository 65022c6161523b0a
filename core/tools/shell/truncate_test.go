package shell

import (
	"strconv"
	"strings"
	"testing"
)

func numbered(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(lines, "\n")
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		limit int
		want  string
	}{
		{"empty", "", 3, ""},
		{"under limit", numbered(3), 3, "1\n2\n3"},
		{"odd limit", numbered(10), 3, "1\n[... 7 lines omitted ...]\n9\n10"},
		{"even limit", numbered(10), 4, "1\n2\n[... 6 lines omitted ...]\n9\n10"},
		{"limit one keeps the end", numbered(5), 1, "[... 4 lines omitted ...]\n5"},
		{"default limit", numbered(501), 0, numbered(250) + "\n[... 1 lines omitted ...]\n" + strings.TrimPrefix(numbered(501), numbered(251)+"\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Truncate(c.text, c.limit); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func BenchmarkTruncate100k(b *testing.B) {
	text := numbered(100000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Truncate(text, 500)
	}
}
