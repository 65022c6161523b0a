package diff

import (
	"reflect"
	"strings"
	"testing"
)

func TestNewFileCounts(t *testing.T) {
	cases := []struct {
		in          string
		lines       int
		eol         string
		endsNewline bool
		bom         bool
	}{
		{"", 0, "\n", true, false},
		{"\uFEFF", 0, "\n", true, true},
		{"a", 1, "\n", false, false},
		{"a\n", 1, "\n", true, false},
		{"a\nb", 2, "\n", false, false},
		{"a\r\nb\r\n", 2, "\r\n", true, false},
		{"a\r\nb\n", 2, "\n", true, false}, // a tie keeps LF
		{"a\r\nb\r\nc\n", 3, "\r\n", true, false},
		{"\n\n\n", 3, "\n", true, false},
		{"\r\n\r\n", 2, "\r\n", true, false},
		{"a\r", 1, "\n", false, false}, // a lone CR is not an ending
		{"a\r\r\n", 1, "\r\n", true, false},
		{"\uFEFFx\r\ny", 2, "\r\n", false, true},
	}
	for _, c := range cases {
		f := newFile([]byte(c.in))
		if f.n() != c.lines || f.eol != c.eol || f.endsWithNewline != c.endsNewline || f.bom != c.bom {
			t.Errorf("%q: lines %d eol %q endsWithNewline %v bom %v; want %d %q %v %v",
				c.in, f.n(), f.eol, f.endsWithNewline, f.bom, c.lines, c.eol, c.endsNewline, c.bom)
		}
		if got := len(f.index()) - 1; got != c.lines {
			t.Errorf("%q: the index has %d lines, the count says %d", c.in, got, c.lines)
		}
	}
}

func TestFindExact(t *testing.T) {
	cases := []struct {
		name   string
		file   string
		search []string
		from   int // a line number; converted to its offset
		limit  int
		want   []hit
	}{
		{"first line", "a\nb\n", []string{"a"}, 0, 1, []hit{{0, 0, 2}}},
		{"two lines", "x\na\nb\n", []string{"a", "b"}, 0, 1, []hit{{1, 2, 6}}},
		{"mid-line text is no hit", "xa\na\n", []string{"a"}, 0, 5, []hit{{1, 3, 5}}},
		{"prefix of a line is no hit", "ab\na\n", []string{"a"}, 0, 5, []hit{{1, 3, 5}}},
		{"from skips earlier lines", "a\nb\na\n", []string{"a"}, 1, 5, []hit{{2, 4, 6}}},
		{"limit", "a\na\na\n", []string{"a"}, 0, 2, []hit{{0, 0, 2}, {1, 2, 4}}},
		{"crlf endings", "a\r\nb\r\n", []string{"b"}, 0, 1, []hit{{1, 3, 6}}},
		{"mixed endings", "a\r\nb\nc\r\n", []string{"a", "b", "c"}, 0, 1, []hit{{0, 0, 8}}},
		{"last line without ending", "a\nb", []string{"b"}, 0, 1, []hit{{1, 2, 3}}},
		{"last line keeps its lone CR", "a\nb\r", []string{"b"}, 0, 1, nil},
		{"lone CR matched as text", "a\nb\r", []string{"b\r"}, 0, 1, []hit{{1, 2, 4}}},
		{"CR before CRLF is text", "b\r\r\n", []string{"b\r"}, 0, 1, []hit{{0, 0, 4}}},
		{"CRLF is not text", "b\r\n", []string{"b\r"}, 0, 1, nil},
		{"block runs past the end", "a\nb\n", []string{"b", "c"}, 0, 1, nil},
		{"block would need a line after the last", "a\nb\n", []string{"b", ""}, 0, 1, nil},
		{"empty first line", "a\n\nb\n", []string{"", "b"}, 0, 1, []hit{{1, 2, 5}}},
		{"empty line at the end", "a\n\n", []string{""}, 0, 5, []hit{{1, 2, 3}}},
		{"empty file", "", []string{""}, 0, 5, nil},
		{"second line differs", "a\nc\na\nb\n", []string{"a", "b"}, 0, 5, []hit{{2, 4, 8}}},
		{"overlapping candidates", "a\na\na\nb\n", []string{"a", "a", "b"}, 0, 5, []hit{{1, 2, 8}}},
		{"whitespace counts", " a\na \na\n", []string{"a"}, 0, 5, []hit{{2, 6, 8}}},
		{"indented", "a\n\ta\n  a\n\t  a\n", []string{"\ta"}, 0, 5, []hit{{1, 2, 5}}},
		{"indentation differs", "\t a\n \ta\n", []string{" \ta"}, 0, 5, []hit{{1, 4, 8}}},
		{"indentation across lines", "x\n\n a\n", []string{"\n a"}, 0, 5, nil},
		{"only whitespace", "a\n  \n \n  \n", []string{"  "}, 0, 5, []hit{{1, 2, 5}, {3, 7, 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFile([]byte(c.file))
			got := f.findExact(c.search, newFile([]byte(c.file)).start(c.from), c.limit)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("findExact = %v, want %v", got, c.want)
			}
		})
	}
}

// TestLineAtOutOfOrder asks for line numbers backwards and forwards: the counting mark must
// restart rather than count a negative stretch.
func TestLineAtOutOfOrder(t *testing.T) {
	f := newFile([]byte("a\nb\nc\nd\n"))
	for _, c := range []struct{ off, line int }{{6, 3}, {2, 1}, {4, 2}, {0, 0}, {8, 4}, {2, 1}} {
		if got := f.lineAt(c.off); got != c.line {
			t.Errorf("lineAt(%d) = %d, want %d", c.off, got, c.line)
		}
	}
}

// naiveExact is findExact's specification: every line i >= from where the block fits and
// each of its lines equals the file line's text, found by walking the line index.
func naiveExact(f *file, s []string, from, limit int) []hit {
	return f.scan(func(i int) bool {
		for j, l := range s {
			if string(f.text(i+j)) != l {
				return false
			}
		}
		return true
	}, len(s), from, limit)
}

// FuzzFindExact checks the byte search against the line-by-line walk on arbitrary files and
// SEARCH sections (the SEARCH lines are the second argument split at '\n').
func FuzzFindExact(f *testing.F) {
	f.Add([]byte("a\nb\na\nb\n"), "a\nb", uint8(0))
	f.Add([]byte("a\r\nb\r\r\nc\r"), "b\r", uint8(1))
	f.Add([]byte("xa\na\n\n\na"), "\na", uint8(0))
	f.Add([]byte("ab\nab\r\nab"), "ab", uint8(2))
	f.Add([]byte("\t a\n a\n\t a\n  a"), "\t a", uint8(0))
	f.Add([]byte(" \n a\n  \n"), "  ", uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, search string, from uint8) {
		s := strings.Split(search, "\n")
		ref := newFile(data)
		start := min(int(from), ref.n())
		want := naiveExact(ref, s, start, maxListed+1)
		fresh := newFile(data)
		got := fresh.findExact(s, ref.start(start), maxListed+1)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("findExact %v, line walk %v", got, want)
		}
		// Once the index exists lineAt answers from it; the answers must not change.
		fresh.index()
		if again := fresh.findExact(s, ref.start(start), maxListed+1); !reflect.DeepEqual(again, want) {
			t.Fatalf("with the index: %v, want %v", again, want)
		}
	})
}

// FuzzFindTrimmed checks the byte search of the trimmed levels against the line-by-line walk
// with trimmedAt, on arbitrary files and SEARCH sections split at '\n'.
func FuzzFindTrimmed(f *testing.F) {
	f.Add([]byte("  a\n\tb\n a \nb\n"), "a\nb", uint8(0))
	f.Add([]byte("xa\n a\n\n\na"), " a ", uint8(0))
	f.Add([]byte("a a\r\n a\r\n\t\n"), "a\n", uint8(1))
	f.Add([]byte(" \n a\n  \n"), "  \na", uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, search string, from uint8) {
		ts := trimAll(strings.Split(search, "\n"))
		ref := newFile(data)
		start := min(int(from), ref.n())
		want := ref.scan(func(i int) bool { return ref.trimmedAt(i, ts) }, len(ts), start, maxListed+1)
		got := newFile(data).findTrimmed(ts, ref.start(start), maxListed+1)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("findTrimmed %v, line walk %v", got, want)
		}
	})
}

// TestIndexRare compares indexRare with bytes.Index where the rare byte is rare, common, at
// either end of the needle, or absent.
func TestIndexRare(t *testing.T) {
	long := strings.Repeat("{x", 200) + "{y"
	for _, c := range []struct{ name, d, needle string }{
		{"first", "abc{d", "abc{"},
		{"last byte rare", "aaaa{aaa{", "aa{"},
		{"absent", "func f(x)", "f(y)"},
		{"needle at the end", "xxxxxxx{", "x{"},
		{"needle longer than d", "{", "{{"},
		{"rare byte common in d", long, "{y"},
		{"rare byte common, absent", long, "{z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, want := indexRare([]byte(c.d), []byte(c.needle)), strings.Index(c.d, c.needle); got != want {
				t.Errorf("indexRare = %d, want %d", got, want)
			}
		})
	}
}
