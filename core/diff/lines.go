package diff

import "bytes"

// bom is the UTF-8 byte order mark. It is removed before matching and restored on output.
var bom = []byte{0xEF, 0xBB, 0xBF}

// file is the line model of an original file. Lines are kept as offsets into data rather than
// as strings so a 100,000-line file costs one slice of ints, and untouched stretches can be
// copied out byte for byte (which is what keeps mixed line endings intact).
type file struct {
	bom  bool
	data []byte // content without the BOM
	// starts[i] is the offset of line i; starts[n] == len(data) closes the last line.
	starts []int
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
	// Counting first (a vectorised scan) sizes the index exactly instead of regrowing it.
	f.starts = make([]int, 0, bytes.Count(d, []byte{'\n'})+2)
	crlf, lf := 0, 0
	for off := 0; off < len(d); {
		f.starts = append(f.starts, off)
		i := bytes.IndexByte(d[off:], '\n')
		if i < 0 {
			break
		}
		if i > 0 && d[off+i-1] == '\r' {
			crlf++
		} else {
			lf++
		}
		off += i + 1
	}
	f.starts = append(f.starts, len(d))
	f.endsWithNewline = len(d) == 0 || d[len(d)-1] == '\n'
	f.eol = "\n"
	if crlf > lf {
		f.eol = "\r\n"
	}
	return f
}

// n is the number of lines.
func (f *file) n() int { return len(f.starts) - 1 }

// text returns line i without its ending. The conversion to string is left to callers that
// compare (the compiler avoids the copy for comparisons).
func (f *file) text(i int) []byte {
	s, e := f.starts[i], f.starts[i+1]
	if e > s && f.data[e-1] == '\n' {
		e--
		if e > s && f.data[e-1] == '\r' {
			e--
		}
	}
	return f.data[s:e]
}
