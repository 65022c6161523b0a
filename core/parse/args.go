package parse

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Args reads the arguments of a native tool call (a JSON object) as far as they have
// streamed, into the same parameter map an XML call yields. A string value is decoded; one
// still streaming is the prefix decoded so far, so a file's content fills in as it arrives.
// Numbers, booleans, objects and arrays become their JSON text once complete; null is left
// out. A repeated key keeps its first value, as in XML. done reports that the object closed.
//
// Args reads the prefix again on every call; arguments are small next to the cost of
// rendering each update, and a restartable reader keeps no state that could go stale.
func Args(s string) (params map[string]string, done bool) {
	params = map[string]string{}
	r := argReader{s: s}
	r.space()
	if !r.eat('{') {
		return params, false
	}
	for {
		r.space()
		if r.eat('}') {
			return params, true
		}
		key, complete := r.str()
		if !complete {
			return params, false
		}
		r.space()
		if !r.eat(':') {
			return params, false
		}
		r.space()
		if r.i >= len(r.s) {
			return params, false
		}
		_, seen := params[key]
		if r.s[r.i] == '"' {
			v, complete := r.str()
			if !seen {
				params[key] = v
			}
			if !complete {
				return params, false
			}
		} else {
			raw, complete := r.value()
			if !complete {
				return params, false
			}
			if !seen && raw != "null" {
				params[key] = raw
			}
		}
		r.space()
		if r.eat(',') {
			continue
		}
		if r.eat('}') {
			return params, true
		}
		return params, false
	}
}

// argReader walks a JSON text that may stop anywhere.
type argReader struct {
	s string
	i int
}

func (r *argReader) space() {
	for r.i < len(r.s) && strings.IndexByte(" \t\r\n", r.s[r.i]) >= 0 {
		r.i++
	}
}

func (r *argReader) eat(c byte) bool {
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		return true
	}
	return false
}

// str decodes a string starting at its opening quote. An unfinished string returns what was
// decoded so far, without a trailing escape that is not complete yet.
func (r *argReader) str() (string, bool) {
	if !r.eat('"') {
		return "", false
	}
	var b strings.Builder
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == '"':
			r.i++
			return b.String(), true
		case c != '\\':
			// Copy the run up to the next quote or escape at once.
			j := r.i
			for j < len(r.s) && r.s[j] != '"' && r.s[j] != '\\' {
				j++
			}
			chunk := r.s[r.i:j]
			if j == len(r.s) {
				// A multi-byte character may be split at the end of what has arrived.
				for len(chunk) > 0 && !utf8.ValidString(chunk) {
					chunk = chunk[:len(chunk)-1]
				}
			}
			b.WriteString(chunk)
			r.i = j
		default:
			n, ok := r.escape(&b)
			if !ok {
				return b.String(), false
			}
			r.i += n
		}
	}
	return b.String(), false
}

// escape decodes the escape at r.i into b and returns its length; false means it is cut off.
func (r *argReader) escape(b *strings.Builder) (int, bool) {
	rest := r.s[r.i:]
	if len(rest) < 2 {
		return 0, false
	}
	simple := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
	if c, ok := simple[rest[1]]; ok {
		b.WriteByte(c)
		return 2, true
	}
	if rest[1] != 'u' {
		return 2, true // not JSON; skipped rather than stopping the value
	}
	hi, ok := hex4(rest[2:])
	if !ok {
		return 0, false
	}
	if utf16.IsSurrogate(rune(hi)) {
		if len(rest) < 12 {
			return 0, false
		}
		if lo, ok := hex4(rest[8:]); ok && rest[6] == '\\' && rest[7] == 'u' {
			b.WriteRune(utf16.DecodeRune(rune(hi), rune(lo)))
			return 12, true
		}
		b.WriteRune(utf8.RuneError)
		return 6, true
	}
	b.WriteRune(rune(hi))
	return 6, true
}

func hex4(s string) (int, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	return int(v), err == nil
}

// value skips a non-string value and returns its text, compacted when it is an object or an
// array. It is complete when its end is in sight: a number is only complete once something
// follows it.
func (r *argReader) value() (string, bool) {
	start := r.i
	switch r.s[r.i] {
	case '{', '[':
		depth := 0
		var b strings.Builder
		for r.i < len(r.s) {
			c := r.s[r.i]
			switch c {
			case '"':
				from := r.i
				if _, ok := r.str(); !ok {
					return "", false
				}
				b.WriteString(r.s[from:r.i])
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case ' ', '\t', '\r', '\n':
				r.i++
				continue
			}
			b.WriteByte(c)
			r.i++
			if depth == 0 {
				return b.String(), true
			}
		}
		return "", false
	}
	for r.i < len(r.s) && strings.IndexByte(",} \t\r\n", r.s[r.i]) < 0 {
		r.i++
	}
	if r.i == len(r.s) {
		return "", false
	}
	return r.s[start:r.i], true
}
