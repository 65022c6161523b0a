package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// finder locates candidate positions of a literal every match must contain, so whole files
// are skipped with a fast scan and the regex only runs on lines that could match.
type finder struct {
	lit  []byte // lower-cased when fold is set
	fold bool   // ASCII case-insensitive
	// pure: the whole regex is this literal, so a hit needs no regex check.
	pure bool
	// The case-folded scan tests two probe bytes of the literal, its rarest, for eight
	// candidate starts at a time: byte x at offset at[i] passes when x|mask[i] == want[i]
	// (mask and want repeated in every byte of the word). A case-folded letter has mask 0x20
	// and its lower case as want, which accepts exactly its two cases (setting bit 5 maps
	// only 'A'..'Z' onto 'a'..'z'); any other byte has mask 0.
	at         [2]int
	mask, want [2]uint64
	// rare is set when a probe byte is rare enough (and, folded, not a letter) for a
	// vectorised search for that byte alone to be the fastest scan; at[rareAt] is it.
	rare   bool
	rareAt int
}

// rareEnough is the rarity from which a single-byte search wins: measured on Go source, a
// byte ranked past the twentieth most common is far enough apart to let the vectorised
// search run long stretches.
const rareEnough = 20

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
	}
	f.pure = re.Op == syntax.OpLiteral && (!fold || bytes.IndexByte(f.lit, '\n') < 0)
	f.at = probes(f.lit)
	for i, at := range f.at {
		c := f.lit[at]
		if fold && c >= 'a' && c <= 'z' {
			f.mask[i] = 0x20 * lowBits
		}
		f.want[i] = uint64(c) * lowBits
		if f.mask[i] == 0 && rarity(c) >= rareEnough && (!f.rare || rarity(c) > rarity(f.lit[f.at[f.rareAt]])) {
			f.rare, f.rareAt = true, i
		}
	}
	return f
}

// probes returns the offsets of the two rarest bytes of lit (len ≥ 2), the earlier first.
func probes(lit []byte) [2]int {
	a, b := 0, 1
	if rarity(lit[b]) > rarity(lit[a]) {
		a, b = b, a
	}
	for i := 2; i < len(lit); i++ {
		switch r := rarity(lit[i]); {
		case r > rarity(lit[a]):
			a, b = i, a
		case r > rarity(lit[b]):
			b = i
		}
	}
	return [2]int{min(a, b), max(a, b)}
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

// Repeated-byte constants of the word-at-a-time scan.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// index returns the position of the first occurrence of the literal in b, or -1.
func (f *finder) index(b []byte) int {
	switch {
	case f.rare:
		return f.indexRare(b)
	case !f.fold:
		// Without a rare byte the standard search is as fast on an exact literal (its
		// vectorised fallback takes over when the first byte is common).
		return bytes.Index(b, f.lit)
	}
	return f.indexFold(b)
}

// indexFold is index for a case-folded literal of common letters, where a search for one
// byte would stop every few dozen bytes. It loads the two probe bytes of sixteen candidate
// starts per step as four words and keeps the starts where both probes pass; only those are
// compared in full. A word's zero bytes are found with the borrow trick, which flags every
// zero byte and may also flag a byte above one: all are verified, so a false flag costs a
// comparison, never a wrong answer.
func (f *finder) indexFold(b []byte) int {
	n := len(f.lit)
	if len(b) < n {
		return -1
	}
	m0, m1, w0, w1 := f.mask[0], f.mask[1], f.want[0], f.want[1]
	// s0[i] and s1[i] are the probe bytes of the start at i; equal lengths let the compiler
	// drop the bounds checks of the loads.
	s1 := b[f.at[1]:]
	s0 := b[f.at[0]:][:len(s1)]
	p := 0
	for ; p+16 <= len(s1); p += 16 {
		x := binary.LittleEndian.Uint64(s0[p:p+8]) | m0 ^ w0
		y := binary.LittleEndian.Uint64(s1[p:p+8]) | m1 ^ w1
		u := binary.LittleEndian.Uint64(s0[p+8:p+16]) | m0 ^ w0
		v := binary.LittleEndian.Uint64(s1[p+8:p+16]) | m1 ^ w1
		lo := (x - lowBits) & ^x & (y - lowBits) & ^y & highBits
		hi := (u - lowBits) & ^u & (v - lowBits) & ^v & highBits
		if lo|hi == 0 {
			continue
		}
		if q := f.firstHit(b, p, lo); q >= 0 {
			return q
		}
		if q := f.firstHit(b, p+8, hi); q >= 0 {
			return q
		}
	}
	for ; p+n <= len(b); p++ {
		if f.equal(b[p : p+n]) {
			return p
		}
	}
	return -1
}

// firstHit returns the first start base+i, for each byte i flagged in hits, where the
// literal is found in b, or -1.
func (f *finder) firstHit(b []byte, base int, hits uint64) int {
	n := len(f.lit)
	for ; hits != 0; hits &= hits - 1 {
		q := base + bits.TrailingZeros64(hits)>>3
		if q+n <= len(b) && f.equal(b[q:q+n]) {
			return q
		}
	}
	return -1
}

// indexRare is index for a literal with a rare byte: a vectorised search for that byte, then
// a comparison of the whole literal around it.
func (f *finder) indexRare(b []byte) int {
	n := len(f.lit)
	at := f.at[f.rareAt]
	c := f.lit[at]
	for off := at; off < len(b); {
		i := bytes.IndexByte(b[off:], c)
		if i < 0 {
			return -1
		}
		p := off + i - at
		if p+n > len(b) {
			return -1
		}
		if f.equal(b[p : p+n]) {
			return p
		}
		off += i + 1
	}
	return -1
}

// equal reports whether b (as long as the literal) is the literal.
func (f *finder) equal(b []byte) bool {
	if f.fold {
		return equalFoldASCII(b, f.lit)
	}
	return string(b) == string(f.lit)
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
