package parse

import (
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BlockType tells a text block from a tool call.
type BlockType int

// Block types, in the order the JSON form names them.
const (
	Text BlockType = iota
	ToolUse
)

// Block is one ordered piece of the message: text (Content) or a tool call (Name, Params).
// Params holds only the parameters that appeared; a repeated parameter keeps its first value.
// Partial marks a block that is still open:
// during streaming the last block; after End only an unclosed tool call.
type Block struct {
	Type    BlockType
	Content string
	Name    string
	Params  map[string]string
	Partial bool
}

// state is where the scanner stands in the message.
type state uint8

const (
	stText    state = iota // text before the tool call
	stTool                 // inside the tool call, outside any parameter
	stParam                // inside a trimmed parameter value
	stRaw                  // inside a raw value (content, diff) before its first closing tag
	stAfter                // text after the tool call
	stDropped              // a second tool call began: the rest of the message is ignored
)

// Parser is an incremental parser for one message. It is not safe for concurrent use: the
// loop that reads the stream owns it.
type Parser struct {
	g *compiled
	// buf holds the whole message. strings.Builder never rewrites bytes it has handed out, so
	// blocks can be substrings of buf.String() that stay valid as it grows.
	buf   strings.Builder
	pos   int // first byte not yet scanned
	st    state
	ended bool
	done  []Block // completed blocks, in order

	text span // the open text block (stText, stAfter)

	tool   *toolSpec         // the open tool call
	params map[string]string // its completed parameters
	param  int               // the open parameter (stParam)
	val    span              // the open parameter's value (stParam)
	// repeat marks an open parameter that already has a value: the first value wins, so a
	// completed parameter never changes under the caller's eyes.
	repeat bool

	// The raw value runs from rawStart to rawEnd, the start of the last closing tag seen so
	// far. Once that tag has been seen (rawPending) the end is tentative: a later closing tag
	// of the same name, before the tool closes, moves it and takes everything between into
	// the value, including parameters parsed in between; saved holds the parameters as they
	// were when the value first closed, to go back to.
	rawLead    bool // the optional leading newline is not decided yet
	rawStart   int
	rawEnd     int
	rawPending bool
	saved      map[string]string

	toolDone bool
}

// New returns a parser for one message in grammar g.
func New(g Grammar) *Parser {
	p := &Parser{g: compile(g)}
	p.text.reset()
	return p
}

// Parse parses a complete message.
func Parse(g Grammar, s string) []Block {
	p := New(g)
	p.Feed(s)
	return p.End()
}

// Feed appends the next chunk of the stream. Chunks may split tags, whitespace and UTF-8
// runes anywhere. Feeding after End, or after a second tool call began, does nothing.
func (p *Parser) Feed(chunk string) {
	if p.ended || p.st == stDropped || chunk == "" {
		return
	}
	p.buf.WriteString(chunk)
	s := p.buf.String()
	for p.pos < len(s) {
		if !p.step(s) {
			break
		}
	}
}

// ToolDone reports whether the first tool call is complete. The loop stops reading the
// stream then: only one tool runs per message.
func (p *Parser) ToolDone() bool { return p.toolDone }

// MoreTools reports whether another tool call began after the first one (it is not parsed:
// only the first call runs, and the model is told the others did not).
func (p *Parser) MoreTools() bool { return p.st == stDropped }

// Blocks returns the blocks so far, the last possibly partial. It costs O(number of blocks
// and parameters), whatever the length of the message: values are not copied. Params maps are
// fresh copies the caller may keep or change.
func (p *Parser) Blocks() []Block {
	s := p.buf.String()
	out := make([]Block, 0, len(p.done)+1)
	for _, b := range p.done {
		b.Params = maps.Clone(b.Params)
		out = append(out, b)
	}
	if b, ok := p.open(s); ok {
		out = append(out, b)
	}
	return out
}

// End marks the end of the stream and returns the final blocks. Text is complete at the end
// of the stream; an unclosed tool call stays partial with its completed parameters and the
// value typed so far for the open one. Bytes still undecided — a cut-off tag, half a rune —
// add nothing. End may be called more than once.
func (p *Parser) End() []Block {
	p.ended = true
	return p.Blocks()
}

// step makes one move: it scans to the next tag that matters in the current state and acts
// on it. It reports false when it needs more input.
func (p *Parser) step(s string) bool {
	switch p.st {
	case stText, stAfter:
		t := p.advance(s, &p.text, p.g.open)
		if t == nil {
			return false
		}
		p.pos += len(t.text)
		p.openTool(s, t.tool)
	case stTool:
		tags := p.tool.level
		if p.rawPending {
			tags = p.tool.pending
		}
		t := p.advance(s, nil, tags)
		if t == nil {
			return false
		}
		at := p.pos
		p.pos += len(t.text)
		switch t.kind {
		case tagToolClose:
			p.closeTool(s)
		case tagParamOpen:
			p.openParam(t.param)
		case tagRawClose:
			p.moveRawEnd(at)
		}
	case stParam:
		ps := &p.tool.params[p.param]
		tags := ps.ends
		if p.rawPending {
			tags = ps.endsPending
		}
		t := p.advance(s, &p.val, tags)
		if t == nil {
			return false
		}
		at := p.pos
		p.pos += len(t.text)
		if t.kind == tagRawClose {
			// The raw value did not end where it seemed to: this parameter was file bytes.
			p.moveRawEnd(at)
			return true
		}
		if !p.repeat {
			p.params[ps.name] = p.val.value(s)
		}
		p.st = stTool
	case stRaw:
		if p.rawLead && !p.skipLeadingNewline(s) {
			return false
		}
		t := p.advance(s, nil, p.tool.rawEnds)
		if t == nil {
			return false
		}
		p.rawEnd = p.pos
		p.pos += len(t.text)
		p.rawPending = true
		p.saved = maps.Clone(p.params)
		p.st = stTool
	default:
		return false
	}
	return true
}

// advance scans from p.pos to the next place where one of tags starts and returns that tag
// with p.pos at its '<'. It returns nil when the input runs out or when the bytes at the end
// may still become a tag. Scanned bytes go to sp when the region is trimmed; sp is nil for
// regions whose bytes are either ignored or kept whole.
func (p *Parser) advance(s string, sp *span, tags []tag) *tag {
	for {
		i := strings.IndexByte(s[p.pos:], '<')
		if i < 0 {
			end := len(s)
			if sp != nil {
				// Whether a split rune is whitespace is not known yet.
				end = cutPartialRune(s, p.pos)
				sp.add(s, p.pos, end)
			}
			p.pos = end
			return nil
		}
		if sp != nil {
			sp.add(s, p.pos, p.pos+i)
		}
		p.pos += i
		t, more := matchTag(s[p.pos:], tags)
		if t != nil || more {
			return t
		}
		if sp != nil {
			sp.add(s, p.pos, p.pos+1)
		}
		p.pos++
	}
}

// matchTag reports which of tags s starts with, or whether s is too short to tell.
func matchTag(s string, tags []tag) (t *tag, more bool) {
	for i := range tags {
		tt := tags[i].text
		if len(s) >= len(tt) {
			if s[:len(tt)] == tt {
				return &tags[i], false
			}
		} else if tt[:len(s)] == s {
			more = true
		}
	}
	return nil, more
}

func (p *Parser) openTool(s string, t *toolSpec) {
	if p.st == stAfter {
		// Only the first tool call counts; what followed it is not worth showing.
		p.st = stDropped
		p.text.reset()
		return
	}
	if p.text.start >= 0 {
		p.done = append(p.done, Block{Type: Text, Content: p.text.value(s)})
	}
	p.text.reset()
	p.tool = t
	p.params = map[string]string{}
	p.rawPending = false
	p.saved = nil
	p.st = stTool
}

func (p *Parser) openParam(i int) {
	p.param = i
	if i == p.tool.raw {
		p.st = stRaw
		p.rawLead = true
		return
	}
	p.st = stParam
	p.val.reset()
	_, p.repeat = p.params[p.tool.params[i].name]
}

// skipLeadingNewline drops the one newline a raw value loses at its start. It reports false
// when a lone '\r' at the end of the input leaves the question open.
func (p *Parser) skipLeadingNewline(s string) bool {
	rest := s[p.pos:]
	switch {
	case strings.HasPrefix(rest, "\n"):
		p.pos++
	case strings.HasPrefix(rest, "\r\n"):
		p.pos += 2
	case rest == "\r":
		return false
	}
	p.rawLead = false
	p.rawStart = p.pos
	return true
}

func (p *Parser) moveRawEnd(at int) {
	p.rawEnd = at
	p.params = maps.Clone(p.saved)
	p.st = stTool
}

func (p *Parser) closeTool(s string) {
	if p.rawPending {
		p.params[p.tool.params[p.tool.raw].name] = dropNewline(s[p.rawStart:p.rawEnd])
	}
	p.done = append(p.done, Block{Type: ToolUse, Name: p.tool.name, Params: p.params})
	p.params, p.saved = nil, nil
	p.toolDone = true
	p.st = stAfter
	p.text.reset()
}

// open returns the block being written, if any.
func (p *Parser) open(s string) (Block, bool) {
	switch p.st {
	case stText, stAfter:
		if p.text.start < 0 {
			return Block{}, false
		}
		return Block{Type: Text, Content: p.text.value(s), Partial: !p.ended}, true
	case stTool, stParam, stRaw:
		params := make(map[string]string, len(p.params)+1)
		maps.Copy(params, p.params)
		if p.rawPending {
			params[p.tool.params[p.tool.raw].name] = dropNewline(s[p.rawStart:p.rawEnd])
		}
		switch p.st {
		case stParam:
			if !p.repeat {
				params[p.tool.params[p.param].name] = p.val.value(s)
			}
		case stRaw:
			v := ""
			if !p.rawLead {
				v = rawSoFar(s, p.rawStart, p.pos)
			}
			params[p.tool.params[p.param].name] = v
		}
		return Block{Type: ToolUse, Name: p.tool.name, Params: params, Partial: true}, true
	}
	return Block{}, false
}

// rawSoFar is the raw value s[from:to] as it may be shown while still open: without the
// newline it would lose if it closed next, and without a lone '\r' or half a rune at its end,
// so that it stays a prefix of the final value.
func rawSoFar(s string, from, to int) string {
	v := s[from:cutPartialRune(s[:to], from)]
	v = dropNewline(v)
	return strings.TrimSuffix(v, "\r")
}

// dropNewline removes the one trailing newline a raw value loses.
func dropNewline(v string) string {
	if strings.HasSuffix(v, "\r\n") {
		return v[:len(v)-2]
	}
	return strings.TrimSuffix(v, "\n")
}

// cutPartialRune returns len(s), or less when s ends, at or after from, with the first bytes
// of a rune whose remaining bytes have not arrived.
func cutPartialRune(s string, from int) int {
	end := len(s)
	for i := end - 1; i >= from && i > end-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return i
			}
			return end
		}
	}
	return end
}

// span tracks the trimmed extent of a region as its bytes are scanned, so trimming never
// rescans: start is the first non-space rune (-1 while there is none), end follows the last.
type span struct{ start, end int }

func (sp *span) reset() { sp.start, sp.end = -1, -1 }

func (sp *span) value(s string) string {
	if sp.start < 0 {
		return ""
	}
	return s[sp.start:sp.end]
}

// add notes the bytes s[a:b], which start and end on rune boundaries.
func (sp *span) add(s string, a, b int) {
	if sp.start < 0 {
		for a < b {
			r, n := decodeRune(s[a:b])
			if !isSpace(r) {
				break
			}
			a += n
		}
		if a == b {
			return
		}
		sp.start = a
	}
	j := b
	for j > a {
		r, n := decodeLastRune(s[a:j])
		if !isSpace(r) {
			break
		}
		j -= n
	}
	if j > a {
		sp.end = j
	}
}

func decodeRune(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}

func decodeLastRune(s string) (rune, int) {
	if c := s[len(s)-1]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeLastRuneInString(s)
}

// isSpace is the whitespace strings.TrimSpace removes.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsSpace(r)
}
