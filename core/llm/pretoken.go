package llm

import (
	"unicode"
	"unicode/utf8"
)

// nextPreToken returns where the pre-token starting at i ends. It follows cl100k_base's
// pattern, whose alternatives are tried in order at each position:
//
//  1. a contraction: 's 't 're 've 'm 'll 'd (any case)
//  2. an optional character that is not a newline, letter or digit, then letters
//  3. one to three digits
//  4. an optional space, then characters that are not space, letter or digit, then newlines
//  5. spaces up to and including the last newline among them
//  6. spaces not followed by a non-space (a run's last space goes with what follows)
//  7. spaces
//
// Each step looks at the text once, so splitting is linear in its length.
func nextPreToken(s string, i int) int {
	r, size := decode(s, i)
	switch {
	case r == '\'':
		if n := contraction(s, i+1); n > 0 {
			return i + 1 + n
		}
	case isLetter(r):
		return skip(s, i+size, isLetter)
	}
	if !isLetter(r) && !isNumber(r) && r != '\r' && r != '\n' {
		if next, _ := decode(s, i+size); i+size < len(s) && isLetter(next) {
			return skip(s, i+size, isLetter)
		}
	}
	if isNumber(r) {
		end := i + size
		for k := 1; k < 3 && end < len(s); k++ {
			d, n := decode(s, end)
			if !isNumber(d) {
				break
			}
			end += n
		}
		return end
	}
	if isPunct(r) {
		return punctRun(s, i+size)
	}
	if r == ' ' && i+1 < len(s) {
		if next, n := decode(s, i+1); isPunct(next) {
			return punctRun(s, i+1+n)
		}
	}
	// r is a space: steps 5 to 7 look at the whole run of spaces.
	end, lastNewline, lastStart := i, -1, i
	for end < len(s) {
		c, n := decode(s, end)
		if !isSpace(c) {
			break
		}
		if c == '\r' || c == '\n' {
			lastNewline = end
		}
		lastStart = end
		end += n
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case end == len(s) || lastStart == i:
		return end
	default:
		return lastStart
	}
}

// punctRun continues step 4 at j: more non-space, non-letter, non-digit characters, then any
// newlines.
func punctRun(s string, j int) int {
	j = skip(s, j, isPunct)
	for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

// contraction returns the length of the contraction suffix at j (after the apostrophe), or 0.
func contraction(s string, j int) int {
	lower := func(k int) byte {
		if k < len(s) {
			return s[k] | 0x20 // ASCII letters only; anything else will not match below
		}
		return 0
	}
	switch lower(j) {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if lower(j+1) == 'e' {
			return 2
		}
	case 'l':
		if lower(j+1) == 'l' {
			return 2
		}
	}
	return 0
}

// decode is utf8.DecodeRuneInString at i; a byte that is not UTF-8 counts as a symbol
// (U+FFFD), as it does once the text is decoded for the regexp.
func decode(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func skip(s string, j int, class func(rune) bool) int {
	for j < len(s) {
		r, n := decode(s, j)
		if !class(r) {
			break
		}
		j += n
	}
	return j
}

// Character classes of the pattern: \p{L}, \p{N}, \s and what is none of them.
const (
	classOther = iota
	classLetter
	classNumber
	classSpace
)

// asciiClass is the class of each ASCII character as unicode.IsLetter, IsNumber and IsSpace
// say (classOther, 0, for the rest): a literal, laid out by the compiler rather than built at
// start (core/lazy).
var asciiClass = [utf8.RuneSelf]uint8{
	'\t': classSpace, '\n': classSpace, '\v': classSpace, '\f': classSpace, '\r': classSpace,
	' ': classSpace,
	'0': classNumber, '1': classNumber, '2': classNumber, '3': classNumber, '4': classNumber,
	'5': classNumber, '6': classNumber, '7': classNumber, '8': classNumber, '9': classNumber,
	'A': classLetter, 'B': classLetter, 'C': classLetter, 'D': classLetter, 'E': classLetter,
	'F': classLetter, 'G': classLetter, 'H': classLetter, 'I': classLetter, 'J': classLetter,
	'K': classLetter, 'L': classLetter, 'M': classLetter, 'N': classLetter, 'O': classLetter,
	'P': classLetter, 'Q': classLetter, 'R': classLetter, 'S': classLetter, 'T': classLetter,
	'U': classLetter, 'V': classLetter, 'W': classLetter, 'X': classLetter, 'Y': classLetter,
	'Z': classLetter,
	'a': classLetter, 'b': classLetter, 'c': classLetter, 'd': classLetter, 'e': classLetter,
	'f': classLetter, 'g': classLetter, 'h': classLetter, 'i': classLetter, 'j': classLetter,
	'k': classLetter, 'l': classLetter, 'm': classLetter, 'n': classLetter, 'o': classLetter,
	'p': classLetter, 'q': classLetter, 'r': classLetter, 's': classLetter, 't': classLetter,
	'u': classLetter, 'v': classLetter, 'w': classLetter, 'x': classLetter, 'y': classLetter,
	'z': classLetter,
}

func class(r rune) uint8 {
	switch {
	case r < 0:
		return classOther
	case r < utf8.RuneSelf:
		return asciiClass[r]
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

func isLetter(r rune) bool { return class(r) == classLetter }
func isNumber(r rune) bool { return class(r) == classNumber }
func isSpace(r rune) bool  { return r >= 0 && class(r) == classSpace }
func isPunct(r rune) bool  { return r >= 0 && class(r) == classOther }
