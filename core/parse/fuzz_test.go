package parse

import (
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input panics, that splitting the input into chunks never changes
// the result, and that nothing streamed is retracted (see grows). The seeds are the cases of
// testdata/cases; split picks where the second and third chunks start.
func FuzzParse(f *testing.F) {
	for _, c := range loadCases(f) {
		f.Add(c.input, uint16(len(c.input)/3), uint16(len(c.input)/2))
	}
	g := DefaultGrammar()
	f.Fuzz(func(t *testing.T, s string, a, b uint16) {
		want := Parse(g, s)
		i, j := int(a)%(len(s)+1), int(b)%(len(s)+1)
		if i > j {
			i, j = j, i
		}
		got := feedChunks(t, g, []string{s[:i], s[i:j], s[j:]})
		if !sameBlocks(got, want) {
			t.Fatalf("chunks at %d,%d of %q\ngot: %s\nwant: %s", i, j, s, canonical(t, got), canonical(t, want))
		}
		if utf8.ValidString(s) {
			for _, blk := range want {
				if !utf8.ValidString(blk.Content) {
					t.Fatalf("invalid UTF-8 text from valid input %q", s)
				}
				for k, v := range blk.Params {
					if !utf8.ValidString(v) {
						t.Fatalf("invalid UTF-8 in %s from valid input %q", k, s)
					}
				}
			}
		}
	})
}
