package search

import (
	"bytes"
	"math/rand/v2"
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

// TestFinderAgreesWithRegexOnGeneratedText runs every scan (the two-probe word scan, the
// rare-byte search, their tails near the end of the buffer) against the regex on generated
// text made of the literal's bytes in both cases, so near misses abound.
func TestFinderAgreesWithRegexOnGeneratedText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		expr string
		rare bool // the scan expected: rare-byte search or two probes
	}{
		{`(?i)deadline`, false}, {`(?i)ab`, false}, {`(?i)x@y`, true}, {`(?i)sort\.slice`, false},
		{`(?i)a{b`, true}, {`func main`, false}, {`Error\(`, true}, {`ab`, false}, {`q%`, true},
	} {
		expr := tc.expr
		f := requiredLiteral(expr)
		if f == nil || !f.pure || f.rare != tc.rare {
			t.Fatalf("%s: finder %+v", expr, f)
		}
		re := regexp.MustCompile(expr)
		alphabet := string(f.lit) + strings.ToUpper(string(f.lit)) + " \n`[{@`"
		for range 4000 {
			text := make([]byte, rng.IntN(70))
			for i := range text {
				text[i] = alphabet[rng.IntN(len(alphabet))]
			}
			if rng.IntN(4) == 0 { // plant a match with mixed case
				at := rng.IntN(len(text) + 1)
				lit := []byte(string(f.lit))
				for i := range lit {
					if f.fold && rng.IntN(2) == 0 {
						lit[i] = bytes.ToUpper(lit[i : i+1])[0]
					}
				}
				text = append(text[:at], append(lit, text[at:]...)...)
			}
			want := -1
			if loc := re.FindIndex(text); loc != nil {
				want = loc[0]
			}
			if got := f.index(text); got != want {
				t.Fatalf("%s in %q: index %d, regex says %d", expr, text, got, want)
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
