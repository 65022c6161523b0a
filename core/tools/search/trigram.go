package search

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// The trigram query planner. From a regex's syntax tree it derives a condition on the
// trigrams a file must hold for the regex to match anywhere in it: a necessary condition
// only, never a sufficient one, so the index can drop files that cannot match and the matcher
// still decides every line. Trigrams are taken from ASCII-lowercased text on both sides, so a
// case-insensitive regex is planned like a case-sensitive one.

// opKind is the kind of a query node.
type opKind uint8

const (
	qAll  opKind = iota // every file may match: the index cannot narrow
	qNone               // no file can match
	qAnd                // every trigram and every sub-query holds
	qOr                 // some trigram or some sub-query holds
)

// query is a condition on a file's trigram set.
type query struct {
	op   opKind
	tris []uint32 // for qAnd/qOr
	sub  []*query // for qAnd/qOr
}

var (
	allQuery  = &query{op: qAll}
	noneQuery = &query{op: qNone}
)

// Limits that keep a plan small: beyond them the planner gives up precision, never soundness.
const (
	maxExact     = 64 // strings in an exact set
	maxClassSize = 8  // runes of a character class turned into strings
)

// planQuery returns the trigram condition of the regex as Search compiles it (with (?m)),
// or allQuery when it cannot be parsed or narrowed.
func planQuery(expr string) *query {
	re, err := syntax.Parse("(?m)"+expr, syntax.Perl)
	if err != nil {
		return allQuery
	}
	return analyze(re.Simplify()).toQuery()
}

// info is what the planner knows of a sub-expression: either the exact set of (lowercased)
// strings it can match, or, when exact is nil, a query every match satisfies.
type info struct {
	exact []string // nil: unknown; may hold ""
	q     *query
}

func exactInfo(s ...string) info { return info{exact: s} }

func queryInfo(q *query) info { return info{q: q} }

// toQuery turns an info into a query.
func (i info) toQuery() *query {
	if i.exact == nil {
		return i.q
	}
	if len(i.exact) == 0 {
		return noneQuery
	}
	var alts []*query
	for _, s := range i.exact {
		t := trigramsOf(s)
		if len(t) == 0 {
			return allQuery // a string too short to say anything
		}
		alts = append(alts, &query{op: qAnd, tris: t})
	}
	return or(alts...)
}

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpNoMatch:
		return info{exact: []string{}}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo("")
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return foldLiteral(re.Rune)
		}
		return exactInfo(lowerASCII(string(re.Rune)))
	case syntax.OpCharClass:
		return charClass(re)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return queryInfo(analyze(re.Sub[0]).toQuery())
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return queryInfo(analyze(re.Sub[0]).toQuery())
		}
		if re.Max == 1 {
			return optional(analyze(re.Sub[0]))
		}
		return queryInfo(allQuery)
	case syntax.OpQuest:
		return optional(analyze(re.Sub[0]))
	case syntax.OpConcat:
		cur := exactInfo("")
		var done []*query // conditions of the parts already closed off
		for _, sub := range re.Sub {
			next := analyze(sub)
			if cur.exact != nil && next.exact != nil && len(cur.exact)*len(next.exact) <= maxExact {
				cur = exactInfo(cross(cur.exact, next.exact)...)
				continue
			}
			done = append(done, cur.toQuery())
			cur = next
		}
		return queryInfo(and(append(done, cur.toQuery())...))
	case syntax.OpAlternate:
		var exact []string
		var alts []*query
		allExact := true
		for _, sub := range re.Sub {
			i := analyze(sub)
			if i.exact == nil {
				allExact = false
			} else {
				exact = append(exact, i.exact...)
			}
			alts = append(alts, i.toQuery())
		}
		if allExact && len(exact) <= maxExact {
			slices.Sort(exact)
			return exactInfo(slices.Compact(exact)...)
		}
		return queryInfo(or(alts...))
	}
	// OpAnyChar, OpAnyCharNotNL, OpStar and anything new: no condition.
	return queryInfo(allQuery)
}

// optional plans x? (or x{0,1}): its strings and the empty one, so the literals around an
// optional part still join into whole strings (`https?://` needs "http://" or "https://",
// `abc?de` "abcde" or "abde"), as in Russ Cox's trigram query analysis; a part with no exact
// set says nothing.
func optional(sub info) info {
	if sub.exact == nil || len(sub.exact) >= maxExact {
		return queryInfo(allQuery)
	}
	out := append([]string{""}, sub.exact...)
	slices.Sort(out)
	return exactInfo(slices.Compact(out)...)
}

// foldLiteral plans a case-insensitive literal. Lowercasing ASCII makes most letters agree
// with their other case, but Unicode folding also matches k with the Kelvin sign and s with
// the long s, and non-ASCII letters with forms of other byte lengths: such runes split the
// literal, and each ASCII run between them must appear.
func foldLiteral(runes []rune) info {
	var parts []string
	run := []byte{}
	split := false
	for _, r := range runes {
		if r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S' {
			split = true
			parts = append(parts, string(run))
			run = run[:0]
			continue
		}
		run = append(run, byte(lowerByte(byte(r))))
	}
	if !split {
		return exactInfo(string(run))
	}
	parts = append(parts, string(run))
	var qs []*query
	for _, p := range parts {
		qs = append(qs, exactInfo(p).toQuery())
	}
	return queryInfo(and(qs...))
}

// charClass turns a small class into the set of its (lowercased) runes as strings.
func charClass(re *syntax.Regexp) info {
	n := 0
	for i := 0; i < len(re.Rune); i += 2 {
		n += int(re.Rune[i+1]-re.Rune[i]) + 1
		if n > maxClassSize {
			return queryInfo(allQuery)
		}
	}
	var out []string
	for i := 0; i < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			out = append(out, lowerASCII(string(r)))
		}
	}
	slices.Sort(out)
	return exactInfo(slices.Compact(out)...)
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func and(qs ...*query) *query {
	out := &query{op: qAnd}
	for _, q := range qs {
		switch q.op {
		case qNone:
			return noneQuery
		case qAll:
		case qAnd:
			out.tris = append(out.tris, q.tris...)
			out.sub = append(out.sub, q.sub...)
		default:
			out.sub = append(out.sub, q)
		}
	}
	if len(out.tris) == 0 && len(out.sub) == 0 {
		return allQuery
	}
	slices.Sort(out.tris)
	out.tris = slices.Compact(out.tris)
	return out
}

func or(qs ...*query) *query {
	out := &query{op: qOr}
	for _, q := range qs {
		switch q.op {
		case qAll:
			return allQuery
		case qNone:
		case qOr:
			out.tris = append(out.tris, q.tris...)
			out.sub = append(out.sub, q.sub...)
		case qAnd:
			if len(q.tris) == 1 && len(q.sub) == 0 {
				out.tris = append(out.tris, q.tris[0])
				continue
			}
			out.sub = append(out.sub, q)
		}
	}
	if len(out.tris) == 0 && len(out.sub) == 0 {
		return noneQuery
	}
	if len(out.tris) == 0 && len(out.sub) == 1 {
		return out.sub[0]
	}
	return out
}

// holds reports whether a file with the sorted trigram set has can satisfy q.
func (q *query) holds(has func(uint32) bool) bool {
	switch q.op {
	case qAll:
		return true
	case qNone:
		return false
	case qAnd:
		for _, t := range q.tris {
			if !has(t) {
				return false
			}
		}
		for _, s := range q.sub {
			if !s.holds(has) {
				return false
			}
		}
		return true
	}
	for _, t := range q.tris {
		if has(t) {
			return true
		}
	}
	for _, s := range q.sub {
		if s.holds(has) {
			return true
		}
	}
	return false
}

// trigramsOf returns the distinct trigrams of s (already lowercased), sorted.
func trigramsOf(s string) []uint32 {
	if len(s) < 3 {
		return nil
	}
	out := make([]uint32, 0, len(s)-2)
	for i := 0; i+3 <= len(s); i++ {
		out = append(out, uint32(s[i])<<16|uint32(s[i+1])<<8|uint32(s[i+2]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
