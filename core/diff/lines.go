package diff

import "bytes"

// bom is the UTF-8 byte order mark. It is removed before matching and restored on output.
var bom = []byte{0xEF, 0xBB, 0xBF}

// file is the line model of an original file. Lines are offsets into data, never strings, so
// untouched stretches can be copied out byte for byte (which is what keeps mixed line endings
// intact).
//
// Opening a file costs two vectorised counts and no per-line work: the verbatim levels search
// the bytes directly (findExact) and turn the offsets they find into line numbers by counting
// newlines. The full index of line starts is built only when a fallback level or an error
// report walks the file line by line.
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
// Without the line index, the first line's text after its indentation is searched for as
// bytes, so the vectorised search skips the text in between instead of visiting each line; a
// hit counts only where the indentation completes it to a whole line at a line start, with the
// lines after it equal to s. Once a fallback has built the index, walking it is cheaper: most
// lines are ruled out by their length alone.
func (f *file) findExact(s []string, from, limit int) []hit {
	if f.starts != nil {
		return f.findExactIndexed(s, f.lineAt(from), limit)
	}
	var out []hit
	d, first := f.data, []byte(s[0])
	lead := len(first) - len(bytes.TrimLeft(first, " \t"))
	core := first[lead:]
	for off := from; off < len(d); {
		if len(core) > 0 {
			if off+lead > len(d) {
				break
			}
			i := bytes.Index(d[off+lead:], core)
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

// findExactIndexed is findExact walking the line index from line from.
func (f *file) findExactIndexed(s []string, from, limit int) []hit {
	// A line can only equal s[0] if its length, ending included, is len(s[0]) plus 0, 1 or 2
	// bytes; checking that first skips nearly every line without reading its text.
	first := len(s[0])
	return f.scan(func(i int) bool {
		if l := f.starts[i+1] - f.starts[i] - first; l < 0 || l > 2 {
			return false
		}
		for j, l := range s {
			if string(f.text(i+j)) != l {
				return false
			}
		}
		return true
	}, len(s), from, limit)
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
