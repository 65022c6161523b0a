package diff

import (
	"bytes"
	"sort"
	"strings"
)

// Level says how a block was located (docs/tools.md, "Editing files": the matching order).
type Level uint8

const (
	// Exact means the SEARCH lines appear verbatim at or after the previous block's match.
	Exact Level = iota + 1
	// Trimmed means they appear there once each line's surrounding whitespace is ignored.
	Trimmed
	// ExactAnywhere means the only verbatim occurrence lies before the previous block's match.
	ExactAnywhere
	// TrimmedAnywhere is ExactAnywhere with surrounding whitespace ignored.
	TrimmedAnywhere
	// Anchor means the only region of the same length whose first and last lines match (trimmed).
	Anchor
	// WholeFile is an empty SEARCH that replaces the whole file (or fills an empty one).
	WholeFile
)

var levelNames = [...]string{"?", "exact", "trimmed", "exact-anywhere", "trimmed-anywhere", "anchor", "whole-file"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return levelNames[0]
}

// Edit is one validated change: original lines [Start, End) (0-based, BOM and endings
// removed) become Lines. Edits are data; build is the one place that applies them.
type Edit struct {
	Block int // 1-based index of the block in the diff
	Start int
	End   int
	Lines []string
	Level Level
}

// placed is an accepted edit together with the byte range [from, to) of data its original
// lines span, endings included, so building the output never has to look up line offsets.
type placed struct {
	Edit
	from, to int
}

// Result is a successful Apply.
type Result struct {
	// Content is the new file, with the original's BOM and line endings.
	Content []byte
	// Edits are in block order.
	Edits []Edit
}

// Apply applies every SEARCH/REPLACE block of diff to original. diff must be complete: the
// tool call closed and the reply ended normally, which is what lets a last block without its
// REPLACE marker be closed at the end (see ParseBlocks). Text that may have been cut off goes
// to a Preview, never here.
//
// On any error the Result is empty, so the caller keeps the original untouched; the error is
// an *ApplyError whose text is meant for the model. On success each Edit's Level tells how
// its block was found, so a caller can warn the model about blocks that were not matched
// verbatim.
func Apply(original []byte, diff string) (Result, error) {
	blocks, err := ParseBlocks(diff)
	if err != nil {
		return Result{}, err
	}
	f := newFile(original)
	m := matcher{f: f}
	for i, b := range blocks {
		if aerr := m.add(i+1, b, len(blocks) == 1); aerr != nil {
			return Result{}, aerr
		}
	}
	return Result{Content: build(f, m.sorted, nil), Edits: m.byBlock}, nil
}

// matcher locates blocks one by one against the original file and keeps the accepted edits.
type matcher struct {
	f       *file
	pos     int      // end of the previous block's match
	posOff  int      // the offset of line pos
	sorted  []placed // by Start, for overlap checks and building
	byBlock []Edit
}

// add locates block b (number no) and records it. alone tells whether it is the diff's only
// block, which an empty SEARCH requires.
func (m *matcher) add(no int, b Block, alone bool) *ApplyError {
	e, err := m.check(no, b, alone)
	if err != nil {
		return err
	}
	m.commit(e)
	return nil
}

// check locates block b and verifies it does not overlap an accepted edit, without recording
// it (Preview shows a block before its REPLACE text is complete).
func (m *matcher) check(no int, b Block, alone bool) (placed, *ApplyError) {
	e, err := m.locate(no, b, alone)
	if err != nil {
		return e, err
	}
	i := m.insertAt(e.Start)
	if i > 0 && m.sorted[i-1].End > e.Start {
		return e, overlapError(no, b.Search, m.sorted[i-1].Edit)
	}
	if i < len(m.sorted) && m.sorted[i].Start < e.End {
		return e, overlapError(no, b.Search, m.sorted[i].Edit)
	}
	return e, nil
}

// commit records a checked edit and moves pos to its end.
func (m *matcher) commit(e placed) {
	i := m.insertAt(e.Start)
	m.sorted = append(m.sorted, placed{})
	copy(m.sorted[i+1:], m.sorted[i:])
	m.sorted[i] = e
	m.byBlock = append(m.byBlock, e.Edit)
	m.pos, m.posOff = e.End, e.to
}

func (m *matcher) insertAt(start int) int {
	return sort.Search(len(m.sorted), func(k int) bool { return m.sorted[k].Start >= start })
}

// outLine maps an original line index to its index in the output built from the accepted
// edits, for lines outside every edit (used to scroll the preview).
func (m *matcher) outLine(orig int) int {
	out := orig
	for _, e := range m.sorted {
		if e.Start >= orig {
			break
		}
		out += len(e.Lines) - (e.End - e.Start)
	}
	return out
}

// maxListed bounds how many candidates an ambiguity error lists.
const maxListed = 5

func (m *matcher) locate(no int, b Block, alone bool) (placed, *ApplyError) {
	f, s := m.f, b.Search
	e := placed{Edit: Edit{Block: no, Lines: b.Replace}}
	if len(s) == 0 {
		if !alone {
			return e, formatError(ErrEmptySearch, no, b.Line, "", "empty-search")
		}
		e.Start, e.End, e.Level = 0, f.n(), WholeFile
		e.from, e.to = 0, len(f.data)
		return e, nil
	}
	found := func(h hit, lv Level) placed {
		e.Start, e.End, e.Level = h.line, h.line+len(s), lv
		e.from, e.to = h.from, h.to
		return e
	}
	// The verbatim and trimmed levels search the bytes; only the anchor level walks the file
	// line by line.
	if c := f.findExact(s, m.posOff, 1); len(c) == 1 {
		return found(c[0], Exact), nil
	}
	ts := trimAll(s)
	if c := f.findTrimmed(ts, m.posOff, 1); len(c) == 1 {
		return found(c[0], Trimmed), nil
	}
	// decide settles a level that insists on a single candidate; ok reports that it decided.
	decide := func(c []hit, lv Level) (_ placed, _ *ApplyError, ok bool) {
		switch {
		case len(c) == 1:
			return found(c[0], lv), nil, true
		case len(c) > 1:
			lines := make([]int, min(len(c), maxListed))
			for k := range lines {
				lines[k] = c[k].line
			}
			return e, ambiguousError(no, s, lines, len(c) > maxListed), true
		}
		return e, nil, false
	}
	unique := func(match func(int) bool, from int, lv Level) (placed, *ApplyError, bool) {
		return decide(f.scan(match, len(s), from, maxListed+1), lv)
	}
	if m.pos > 0 {
		if e, err, ok := decide(f.findExact(s, 0, maxListed+1), ExactAnywhere); ok {
			return e, err
		}
		if e, err, ok := decide(f.findTrimmed(ts, 0, maxListed+1), TrimmedAnywhere); ok {
			return e, err
		}
	}
	if len(s) >= 3 {
		last := len(s) - 1
		anchor := func(i int) bool {
			return string(bytes.TrimSpace(f.text(i))) == ts[0] &&
				string(bytes.TrimSpace(f.text(i+last))) == ts[last]
		}
		if e, err, ok := unique(anchor, m.pos, Anchor); ok {
			return e, err
		}
		if m.pos > 0 {
			if e, err, ok := unique(anchor, 0, Anchor); ok {
				return e, err
			}
		}
	}
	return e, noMatchError(f, no, s)
}

func trimAll(s []string) []string {
	out := make([]string, len(s))
	for i, l := range s {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// scan returns up to limit places, in file order, where a block of m lines fits starting at a
// line i >= from and match(i) holds. It walks the line index.
func (f *file) scan(match func(int) bool, m, from, limit int) []hit {
	var out []hit
	f.index()
	for i := from; i+m <= f.n(); i++ {
		if match(i) {
			out = append(out, hit{line: i, from: f.start(i), to: f.start(i + m)})
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// trimmedAt reports whether the file's lines starting at line i equal ts once their
// surrounding whitespace is removed; ts is already trimmed.
func (f *file) trimmedAt(i int, ts []string) bool {
	for j, l := range ts {
		if string(bytes.TrimSpace(f.text(i+j))) != l {
			return false
		}
	}
	return true
}

// build applies edits (sorted by Start, not overlapping) plus an optional extra edit that is
// still being streamed. It is the only place that turns edits into bytes.
//
// Untouched stretches are copied byte for byte, endings included; written lines take the
// file's ending. If the original lacked a final newline and an edit reaches the end, the
// output's final ending is dropped so that property survives.
func build(f *file, edits []placed, extra *placed) []byte {
	// The output is assembled by one Join of the pieces, which allocates it once without
	// zeroing it first: the untouched stretches are slices of the original, and each edit's
	// lines are rendered with their endings into one small piece.
	pieces := make([][]byte, 0, 2*len(edits)+4)
	if f.bom {
		pieces = append(pieces, bom)
	}
	prev, touchesEnd := 0, false
	write := func(e *placed) {
		pieces = append(pieces, f.data[prev:e.from], withEndings(e.Lines, f.eol))
		prev = e.to
		touchesEnd = touchesEnd || e.End == f.n()
	}
	done := extra == nil
	for i := range edits {
		if !done && extra.Start <= edits[i].Start {
			write(extra)
			done = true
		}
		write(&edits[i])
	}
	if !done {
		write(extra)
	}
	pieces = append(pieces, f.data[prev:])
	out := bytes.Join(pieces, nil)
	body := 0
	if f.bom {
		body = len(bom)
	}
	if touchesEnd && !f.endsWithNewline {
		switch {
		case bytes.HasSuffix(out[body:], []byte("\r\n")):
			out = out[:len(out)-2]
		case bytes.HasSuffix(out[body:], []byte("\n")):
			out = out[:len(out)-1]
		}
	}
	if len(out) == body {
		// Deleting every line leaves an empty file, not a lone BOM.
		return []byte{}
	}
	return out
}

// withEndings returns lines, each followed by eol, as one slice.
func withEndings(lines []string, eol string) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + len(eol)
	}
	out := make([]byte, 0, n)
	for _, l := range lines {
		out = append(out, l...)
		out = append(out, eol...)
	}
	return out
}
