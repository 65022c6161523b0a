package edit

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	cases := []struct {
		name, a, b string
		n          int
		want       string
	}{
		{name: "equal", a: "x\n", b: "x\n", n: 3, want: ""},
		{name: "one line changed", a: "a\nb\nc\n", b: "a\nB\nc\n", n: 3,
			want: "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{name: "context cut to n", a: "1\n2\n3\n4\n5\n6\n7\n", b: "1\n2\n3\nfour\n5\n6\n7\n", n: 1,
			want: "--- f\n+++ f\n@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n"},
		{name: "insert at start", a: "a\nb\n", b: "new\na\nb\n", n: 3,
			want: "--- f\n+++ f\n@@ -1,2 +1,3 @@\n+new\n a\n b\n"},
		{name: "delete at end", a: "a\nb\nc\n", b: "a\nb\n", n: 1,
			want: "--- f\n+++ f\n@@ -2,2 +2,1 @@\n b\n-c\n"},
		{name: "new file", a: "", b: "x\ny\n", n: 3,
			want: "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{name: "no final newline", a: "a\nb", b: "a\nc", n: 3,
			want: "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{name: "newline added at end", a: "a", b: "a\n", n: 3,
			want: "--- f\n+++ f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{name: "two hunks far apart", a: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", b: "one\n2\n3\n4\n5\n6\n7\n8\nnine\n", n: 1,
			want: "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -8,2 +8,2 @@\n 8\n-9\n+nine\n"},
		{name: "close changes share a hunk", a: "1\n2\n3\n4\n5\n", b: "one\n2\n3\nfour\n5\n", n: 1,
			want: "--- f\n+++ f\n@@ -1,5 +1,5 @@\n-1\n+one\n 2\n 3\n-4\n+four\n 5\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Unified("f", c.a, c.b, c.n); got != c.want {
				t.Fatalf("Unified =\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestUnifiedRoundTrip applies the rendered hunks to a and checks the result is b, on random
// edits of random files: the hunk headers and bodies must be exact for that to work.
func TestUnifiedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		a := randomFile(r, r.IntN(40))
		b := mutate(r, a)
		n := r.IntN(4)
		u := Unified("f", a, b, n)
		got, err := applyUnified(a, u)
		if err != nil || got != b {
			t.Fatalf("case %d (n=%d): apply(Unified) = %q, %v; want %q\ndiff:\n%s", i, n, got, err, b, u)
		}
	}
}

// TestUnifiedManyLines checks line diffs beyond the 65,536 distinct lines where rune-encoded
// line diffs are known to break.
func TestUnifiedManyLines(t *testing.T) {
	a := genLines(100_000)
	b := strings.Replace(a, "line 99999\n", "changed\n", 1)
	u := Unified("f", a, b, 3)
	if want := "@@ -99996,5 +99996,5 @@\n line 99996\n line 99997\n line 99998\n-line 99999\n+changed\n line 100000\n"; !strings.Contains(u, want) {
		t.Fatalf("Unified on 100k lines =\n%s", u)
	}
	if got, err := applyUnified(a, u); err != nil || got != b {
		t.Fatalf("round trip failed: %v", err)
	}
}

func randomFile(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "l%d\n", r.IntN(8))
	}
	s := b.String()
	if s != "" && r.IntN(4) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

func mutate(r *rand.Rand, a string) string {
	lines := strings.SplitAfter(a, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for range r.IntN(5) {
		switch i := r.IntN(len(lines) + 1); r.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{"new" + strconv.Itoa(r.IntN(100)) + "\n"}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		default:
			if i < len(lines) {
				lines[i] = "x" + lines[i]
			}
		}
	}
	out := strings.Join(lines, "")
	if out != "" && r.IntN(5) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// applyUnified is a minimal patch: it trusts the hunk headers for positions and checks every
// context and deleted line against a.
func applyUnified(a, u string) (string, error) {
	if u == "" {
		return a, nil
	}
	src := strings.SplitAfter(a, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	var out []string
	pos := 0
	lines := strings.SplitAfter(u, "\n")
	for i := 2; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			var as, ac, bs, bc int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &as, &ac, &bs, &bc); err != nil {
				return "", fmt.Errorf("header %q: %w", l, err)
			}
			start := as - 1
			if ac == 0 {
				start = as // an empty side names the line after which the hunk goes
			}
			if start < pos {
				return "", fmt.Errorf("hunk %q goes backwards", l)
			}
			out = append(out, src[pos:start]...)
			pos = start
			continue
		}
		noEOL := i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`)
		text := l[1:]
		if noEOL {
			text = strings.TrimSuffix(text, "\n")
			i++
		}
		switch l[0] {
		case ' ', '-':
			if pos >= len(src) || src[pos] != text {
				return "", fmt.Errorf("line %d: have %q, diff says %q", pos+1, at(src, pos), text)
			}
			if l[0] == ' ' {
				out = append(out, text)
			}
			pos++
		case '+':
			out = append(out, text)
		default:
			return "", fmt.Errorf("bad diff line %q", l)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<eof>"
}
