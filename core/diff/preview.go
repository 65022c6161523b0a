package diff

import "strings"

// Preview follows a replace_in_file diff while it streams so the diff view can fill in place.
//
// Each Update consumes only the text added since the previous call: complete lines go
// through the same parser as Apply, a block is located as soon as its separator arrives, and
// REPLACE lines then appear in place of the matched lines. The proposed content is built
// only when Content is called, so callers throttle on View.Changed. A partial last line is
// held back (it may be a half-written marker) until more text arrives.
//
// Errors are sticky: after the first one the view freezes and View.Err reports it. The
// authoritative result is Final (or Apply), which also rules on the last, unterminated line.
// A block whose REPLACE lines are still arriving is shown in place; if the diff ends there,
// Final closes that block, so the last view and the saved file agree. A diff that ends inside
// a SEARCH section shows nothing for that block and Final refuses it.
// A Preview is not safe for concurrent use.
type Preview struct {
	original []byte
	f        *file
	p        parser
	m        matcher
	off      int     // bytes of the diff consumed: always just after a '\n'
	cur      *placed // block located but not closed yet
	err      *ApplyError
	line     int // 1-based line of the proposed content being written
	gen      int // bumped whenever the proposed content changes
	cacheGen int
	cache    []byte
}

// View is what the diff view should do after an Update.
type View struct {
	// Changed is set when the proposed content differs from the previous Update's.
	Changed bool
	// Line is the 1-based line of the proposed content being changed (for scrolling), 0 while
	// nothing has been located yet.
	Line int
	// Blocks is the number of blocks located so far, including the one being written.
	Blocks int
	// Err is the first error met, nil while the diff looks good so far.
	Err error
}

// NewPreview starts a preview of edits to original.
func NewPreview(original []byte) *Preview {
	p := &Preview{original: original, f: newFile(original), cacheGen: -1}
	p.m.f = p.f
	return p
}

// Update takes the whole diff received so far; each call's text must extend the previous
// one. A shorter text restarts the preview from scratch.
func (p *Preview) Update(diffSoFar string) View {
	if len(diffSoFar) < p.off {
		fresh := NewPreview(p.original)
		fresh.gen = p.gen + 1
		*p = *fresh
	}
	gen := p.gen
	for p.err == nil {
		i := strings.IndexByte(diffSoFar[p.off:], '\n')
		if i < 0 {
			break
		}
		// Copy the line: a substring would pin this call's whole diff string, and a stream
		// of growing strings would then cost quadratic memory.
		line := strings.Clone(diffSoFar[p.off : p.off+i])
		p.off += i + 1
		p.step(line)
	}
	v := View{Changed: p.gen != gen, Line: p.line, Blocks: len(p.m.byBlock)}
	if p.cur != nil {
		v.Blocks++
	}
	if p.err != nil {
		v.Err = p.err
	}
	return v
}

func (p *Preview) step(line string) {
	ev, err := p.p.feed(line)
	if err != nil {
		p.err = err
		return
	}
	switch ev {
	case evOpen:
		// A second block makes an earlier empty SEARCH (whole-file replacement) invalid.
		if len(p.m.byBlock) == 1 && p.m.byBlock[0].Level == WholeFile {
			p.err = formatError(ErrEmptySearch, 1, p.p.blocks[0].Line, "", "empty-search")
		}
	case evSeparator:
		no := len(p.p.blocks) + 1
		e, err := p.m.check(no, p.p.cur, no == 1)
		if err != nil {
			p.err = err
			return
		}
		p.cur = &e
		p.line = p.m.outLine(e.Start) + 1
		p.gen++
	case evReplaceLine:
		p.cur.Lines = p.p.cur.Replace
		p.line = p.m.outLine(p.cur.Start) + len(p.cur.Lines)
		p.gen++
	case evClose:
		e := *p.cur
		e.Lines = p.p.blocks[len(p.p.blocks)-1].Replace
		p.m.commit(e)
		p.cur = nil
	}
}

// Content returns the proposed file as of the last Update: completed blocks applied and the
// block being written shown in place. It is rebuilt only when something changed.
func (p *Preview) Content() []byte {
	if p.cacheGen != p.gen {
		p.cache = build(p.f, p.m.sorted, p.cur)
		p.cacheGen = p.gen
	}
	return p.cache
}

// Final applies the complete diff; it is Apply on the preview's original.
func (p *Preview) Final(diff string) (Result, error) {
	return Apply(p.original, diff)
}
