package llm

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// The ASCII classes are unicode's: a letter, a number or a space as unicode.IsLetter,
// IsNumber and IsSpace say.
func TestASCIIClassIsUnicodes(t *testing.T) {
	for c := range utf8.RuneSelf {
		want := uint8(classOther)
		switch r := rune(c); {
		case unicode.IsLetter(r):
			want = classLetter
		case unicode.IsNumber(r):
			want = classNumber
		case unicode.IsSpace(r):
			want = classSpace
		}
		if got := class(rune(c)); got != want {
			t.Errorf("%q: class %d, want %d", rune(c), got, want)
		}
	}
}
