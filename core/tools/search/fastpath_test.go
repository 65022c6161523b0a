package search

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFoldFinderAgreesWithRegex checks the rare-byte case-folded scan finds the same first
// match as the regex, wherever the rare byte sits in the literal and near buffer ends.
func TestFoldFinderAgreesWithRegex(t *testing.T) {
	texts := []string{
		"", "x", "deadline", "DEADLINE", "dEaDlInE and deadline", "no match here at all",
		"zzzdeadlin", "eadline deadlinx DeadLine", "a\nquiz QUIZ", "quix quiZ", "qu",
	}
	for _, expr := range []string{`(?i)deadline`, `(?i)quiz`, `(?i)ab`} {
		f := requiredLiteral(expr)
		if f == nil || !f.fold {
			t.Fatalf("%s: no fold finder", expr)
		}
		re := regexp.MustCompile(expr)
		for _, text := range texts {
			want := -1
			if loc := re.FindStringIndex(text); loc != nil {
				want = loc[0]
			}
			if got := f.index([]byte(text)); got != want {
				t.Errorf("%s in %q: index %d, regex says %d", expr, text, got, want)
			}
		}
	}
}

// TestReadIntoSizes reads files around the buffer size: the short-read end detection and
// the fstat sizing must return every byte, whatever the pooled buffer held before.
func TestReadIntoSizes(t *testing.T) {
	dir := t.TempDir()
	buf := make([]byte, 0, 10) // smaller than minBuf: replaced
	for _, n := range []int{0, 1, 100, minBuf - 1, minBuf, minBuf + 1, 3*minBuf + 7} {
		want := bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n]
		p := filepath.Join(dir, strings.Repeat("f", 1+n%5))
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readInto(p, buf)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("size %d: read %d bytes, differing", n, len(got))
		}
		buf = got[:0] // reuse, as the pool does
	}
	if _, err := readInto(filepath.Join(dir, "missing"), buf); err == nil {
		t.Error("missing file read without error")
	}
}
