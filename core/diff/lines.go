package diff

import (
	"bytes"
	"strings"
)

// bom is the UTF-8 byte order mark. It is removed before matching and restored on output.
var bom = []byte{0xEF, 0xBB, 0xBF}

// file is the line model of an original file. Lines are offsets into data, never strings, so
// untouched stretches can be copied out byte for byte (which is what keeps mixed line endings
// intact).
//
// Opening a file costs two vectorised counts and no per-line work: the verbatim and the
// whitespace-trimmed levels search the bytes directly (findExact, findTrimmed) and turn the
// offsets they find into line numbers by counting newlines. The full index of line starts is
// built only when the anchor level or an error report walks the file line by line.
type file struct {
	bom  bool
	data []byte // content without the BOM
	// lines is the number of lines; a last line without an ending counts.
	lines int
	// starts[i] is the offset of line i and starts[lines] == len(data); nil until index runs.
	starts []int
	// mark is a known line start (line markLine begins at offset markOff) from which lineAt
	// counts forward, so locating blocks in file order counts each newline once.
	markLine, markOff int
	// endsWithNewline is false only for a non-empty file whose last line has no ending.
	// An empty file counts as ending with a newline so text inserted into it gets one.
	endsWithNewline bool
	// eol is the ending written on lines the edit produces: CRLF when most lines use it.
	eol string
}

func newFile(original []byte) *file {
	f := &file{data: original}
	if bytes.HasPrefix(original, bom) {
		f.bom = true
		f.data = original[len(bom):]
	}
	d := f.data
	newlines := bytes.Count(d, []byte{'\n'})
	// A CRLF ending is a '\n' right after a '\r'; the pair cannot overlap itself, so counting
	// the pair counts those endings.
	crlf := bytes.Count(d, []byte("\r\n"))
	f.lines = newlines
	f.endsWithNewline = len(d) == 0 || d[len(d)-1] == '\n'
	if !f.endsWithNewline {
		f.lines++
	}
	f.eol = "\n"
	if crlf > newlines-crlf {
		f.eol = "\r\n"
	}
	return f
}

// n is the number of lines.
func (f *file) n() int { return f.lines }

// index builds the table of line starts on first use.
func (f *file) index() []int {
	if f.starts != nil {
		return f.starts
	}
	d := f.data
	f.starts = make([]int, 0, f.lines+1)
	for off := 0; off < len(d); {
		f.starts = append(f.starts, off)
		i := bytes.IndexByte(d[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	f.starts = append(f.starts, len(d))
	return f.starts
}

// start is the offset of line i (i == n() gives len(data)).
func (f *file) start(i int) int { return f.index()[i] }

// text returns line i without its ending; the index must exist (scan and the error reports
// build it). The conversion to string is left to callers that compare (the compiler avoids
// the copy for comparisons).
func (f *file) text(i int) []byte {
	s := f.starts[i]
	return f.data[s:textEnd(f.data, s, f.starts[i+1])]
}

// lineEnd returns, for the line starting at offset off, the offset just past its ending
// (the next line's start, or len(data) for the last line).
func (f *file) lineEnd(off int) int {
	if i := bytes.IndexByte(f.data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(f.data)
}

// textEnd is where the text of the line [s, e) stops: before a final '\n', and before a
// '\r' preceding it. A last line without '\n' keeps a trailing '\r' as text.
func textEnd(d []byte, s, e int) int {
	if e > s && d[e-1] == '\n' {
		e--
		if e > s && d[e-1] == '\r' {
			e--
		}
	}
	return e
}

// lineAt returns the number of the line starting at offset off.
func (f *file) lineAt(off int) int {
	if f.starts != nil {
		lo, hi := 0, f.lines
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if f.starts[m] < off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo
	}
	if off < f.markOff {
		f.markLine, f.markOff = 0, 0
	}
	f.markLine += bytes.Count(f.data[f.markOff:off], []byte{'\n'})
	f.markOff = off
	return f.markLine
}

// findExact returns up to limit places, in file order, where the lines of s appear verbatim
// starting at a line that begins at or after offset from (a line start). Each hit gives the
// first line and the byte range [from, to) its lines span, endings included.
//
// The first line's text after its indentation is searched for as bytes (indexRare), so the
// vectorised search skips the text in between instead of visiting each line; a hit counts
// only where the indentation completes it to a whole line at a line start, with the lines
// after it equal to s. The line index is never needed.
func (f *file) findExact(s []string, from, limit int) []hit {
	var out []hit
	d, first := f.data, []byte(s[0])
	lead := len(first) - len(bytes.TrimLeft(first, " \t"))
	core := first[lead:]
	for off := from; off < len(d); {
		if len(core) > 0 {
			if off+lead > len(d) {
				break
			}
			i := indexRare(d[off+lead:], core)
			if i < 0 {
				break
			}
			// A valid start earlier in this line would have shown its text first, so a
			// failed candidate lets the search go on from the next line.
			c := off + i
			if (c > 0 && d[c-1] != '\n') || !bytes.Equal(d[c:c+lead], first[:lead]) {
				off = f.lineEnd(c)
				continue
			}
			off = c
		}
		next := f.lineEnd(off)
		if end, ok := f.matchFrom(off, s); ok {
			out = append(out, hit{line: f.lineAt(off), from: off, to: end})
			if len(out) == limit {
				break
			}
		}
		off = next
	}
	return out
}

// findTrimmed is findExact for the whitespace-trimmed levels: up to limit places, at or after
// offset from (a line start), where each line of the file equals the line of ts (already
// trimmed) once its surrounding whitespace is removed.
//
// A line whose trimmed text is ts[0] contains ts[0], so unless ts[0] is empty only the lines
// holding those bytes are compared, and the search for them skips the rest; the line index is
// walked only for an empty first line.
func (f *file) findTrimmed(ts []string, from, limit int) []hit {
	if from >= len(f.data) {
		return nil // no line starts at the end, even of a file whose last line has no ending
	}
	if ts[0] == "" {
		return f.scan(func(i int) bool { return f.trimmedAt(i, ts) }, len(ts), f.lineAt(from), limit)
	}
	var out []hit
	d, core := f.data, []byte(ts[0])
	for off := from; off < len(d); {
		i := indexRare(d[off:], core)
		if i < 0 {
			break
		}
		c := off + i
		start := off + bytes.LastIndexByte(d[off:c], '\n') + 1
		if end, ok := f.trimmedFrom(start, ts); ok {
			out = append(out, hit{line: f.lineAt(start), from: start, to: end})
			if len(out) == limit {
				break
			}
		}
		off = f.lineEnd(c)
	}
	return out
}

// trimmedFrom reports whether the lines starting at offset off equal ts once their
// surrounding whitespace is removed, and where the last of them ends (ending included).
func (f *file) trimmedFrom(off int, ts []string) (int, bool) {
	d := f.data
	for _, l := range ts {
		if off >= len(d) {
			return 0, false // the file ends before the block does
		}
		e := f.lineEnd(off)
		if string(bytes.TrimSpace(d[off:textEnd(d, off, e)])) != l {
			return 0, false
		}
		off = e
	}
	return off, true
}

// byFrequency lists bytes from the most to the least frequent in source text, roughly; a byte
// it does not list counts as rarer than all of them.
const byFrequency = " \te\ntoainsrlcdhumpf.(),_gb;=y\"vkw:/-xE0T1*S2IAR>C#N3[]O<5L4'6P8D97{}F&!M+B|$?%@\\^`~"

// indexRare is bytes.Index(d, needle) for a non-empty needle, but it looks for the needle's
// rarest byte (byFrequency) where bytes.Index looks for the first. In source code the first
// byte of a line's text is often a letter seen every few bytes, and each sighting costs a call
// and a compare; a rarer byte skips more of the file per call. Should the rare byte turn out
// common in d, bytes.Index takes over, as it does itself when its first byte keeps failing.
func indexRare(d, needle []byte) int {
	k, rank := 0, -1
	for i, b := range needle {
		r := strings.IndexByte(byFrequency, b)
		if r < 0 {
			r = len(byFrequency)
		}
		if r > rank {
			k, rank = i, r
		}
	}
	n, b := len(needle), needle[k]
	for c, fails := 0, 0; c+n <= len(d); {
		// Candidates start in [c, len(d)-n], so their rare byte lies in [c+k, len(d)-n+k].
		j := bytes.IndexByte(d[c+k:len(d)-n+k+1], b)
		if j < 0 {
			return -1
		}
		c += j
		if bytes.Equal(d[c:c+n], needle) {
			return c
		}
		c++
		if fails++; fails > 4+c>>4 {
			if i := bytes.Index(d[c:], needle); i >= 0 {
				return c + i
			}
			return -1
		}
	}
	return -1
}

// matchFrom reports whether the lines starting at offset off equal s verbatim, and where the
// last of them ends (ending included).
func (f *file) matchFrom(off int, s []string) (int, bool) {
	d := f.data
	for _, l := range s {
		if off >= len(d) {
			return 0, false // the file ends before the block does
		}
		e := f.lineEnd(off)
		if string(d[off:textEnd(d, off, e)]) != l {
			return 0, false
		}
		off = e
	}
	return off, true
}

// hit is one place findExact found.
type hit struct{ line, from, to int }
