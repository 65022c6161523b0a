package search

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// finder locates candidate positions of a literal every match must contain, so whole files
// are skipped with a vectorised scan and the regex only runs on lines that could match.
type finder struct {
	lit  []byte // lower-cased when fold is set
	fold bool   // ASCII case-insensitive
	// pure: the whole regex is this literal, so a hit needs no regex check.
	pure bool
	// For fold scans: the literal's rarest byte in both cases and its offset, so the
	// vectorised scan stops at fewer false candidates than it would on the first byte.
	lo, up byte
	at     int
}

// commonBytes orders frequent bytes of source text, most frequent first (lower-case letters
// stand for both cases); bytes not listed count as rarest.
const commonBytes = " etaoinsrlcdupmhfg.b(),y;=_\"wvk\n\tx:*/-0{}1j'[]q2z"

// rarity ranks b: higher is rarer.
func rarity(b byte) int {
	if i := strings.IndexByte(commonBytes, b); i >= 0 {
		return i
	}
	return len(commonBytes)
}

// requiredLiteral extracts the longest literal every match of re must contain, or nil.
func requiredLiteral(expr string) *finder {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	lit, fold := required(re)
	if len(lit) < 2 {
		return nil
	}
	f := &finder{lit: []byte(string(lit)), fold: fold}
	if fold {
		for _, r := range lit {
			if r >= utf8.RuneSelf {
				return nil // case folding beyond ASCII: leave it to the regex
			}
		}
		f.lit = bytes.ToLower(f.lit)
		for i, c := range f.lit {
			if rarity(c) > rarity(f.lit[f.at]) {
				f.at = i
			}
		}
		f.lo = f.lit[f.at]
		f.up = bytes.ToUpper(f.lit[f.at : f.at+1])[0]
	}
	f.pure = !fold && re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0
	return f
}

// required returns a literal that any match of re contains, and whether it is case-folded.
func required(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Adjacent literals of the same case mode form one longer literal.
		var best, run []rune
		var bestFold, runFold bool
		flush := func() {
			if len(run) > len(best) {
				best, bestFold = run, runFold
			}
			run = nil
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if len(run) > 0 && fold != runFold {
					flush()
				}
				run, runFold = append(run, sub.Rune...), fold
				continue
			}
			flush()
			if l, f := required(sub); len(l) > len(best) {
				best, bestFold = l, f
			}
		}
		flush()
		return best, bestFold
	}
	return nil, false
}

// index returns the position of the next candidate in b, or -1.
func (f *finder) index(b []byte) int {
	if !f.fold {
		return bytes.Index(b, f.lit)
	}
	off := f.at // the rare byte's earliest possible position
	for {
		if off > len(b) {
			return -1
		}
		i := indexEitherByte(b[off:], f.lo, f.up)
		if i < 0 {
			return -1
		}
		p := off + i - f.at // where the literal would start
		if p+len(f.lit) > len(b) {
			return -1
		}
		if equalFoldASCII(b[p:p+len(f.lit)], f.lit) {
			return p
		}
		off += i + 1
	}
}

// indexEitherByte finds the first of two bytes; two vectorised scans beat one byte loop.
func indexEitherByte(b []byte, x, y byte) int {
	i := bytes.IndexByte(b, x)
	if x == y {
		return i
	}
	lim := b
	if i >= 0 {
		lim = b[:i]
	}
	if j := bytes.IndexByte(lim, y); j >= 0 {
		return j
	}
	return i
}

// equalFoldASCII compares b with lower (already lower case), ignoring ASCII case.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
