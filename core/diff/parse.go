package diff

import "strings"

// Block is one SEARCH/REPLACE pair as written in the diff, line endings removed.
type Block struct {
	Search  []string
	Replace []string
	// Line is the 1-based line of the diff holding this block's SEARCH marker.
	Line int
}

// marker is what a diff line is, judged after trimming its surrounding whitespace.
type marker uint8

const (
	content marker = iota
	searchMarker
	separator
	replaceMarker
	// broken is a line that plainly tries to be a SEARCH or REPLACE marker but is misspelt.
	// Treating it as content would silently put a marker into the file, so it is an error.
	broken
)

// classify decides what a diff line is. Only a line that starts with marker characters and
// then says SEARCH or REPLACE can be a broken marker; everything else that is not an exact
// marker (`---`, `--- a/x`, `+++ b/x`, `=== RUN`) is ordinary content.
//
// One `>` right after the keyword (`------- SEARCH>`, `+++++++ REPLACE>`) is accepted: models
// write it often enough that refusing it would only cost a retry. Anything more stays broken.
func classify(line string) marker {
	t := strings.TrimSpace(line)
	run := 0
	for run < len(t) && isMarkerChar(t[run]) {
		run++
	}
	if run == 0 {
		return content
	}
	if run == len(t) {
		if run >= 3 && allByte(t, '=') {
			return separator
		}
		return content
	}
	lead, rest := t[:run], t[run:]
	switch strings.TrimSuffix(rest, ">") {
	case " SEARCH":
		if run >= 3 && (allByte(lead, '-') || allByte(lead, '<')) {
			return searchMarker
		}
	case " REPLACE":
		if run >= 3 && (allByte(lead, '+') || allByte(lead, '>')) {
			return replaceMarker
		}
	}
	w := strings.Trim(rest, " \t<>")
	if strings.EqualFold(w, "SEARCH") || strings.EqualFold(w, "REPLACE") {
		return broken
	}
	return content
}

func isMarkerChar(c byte) bool {
	return c == '-' || c == '<' || c == '>' || c == '+' || c == '='
}

func allByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			return false
		}
	}
	return true
}

type parseState uint8

const (
	outside parseState = iota
	inSearch
	inReplace
)

// event tells an incremental consumer (Preview) what the last line did.
type event uint8

const (
	evNone event = iota
	evOpen
	evSearchLine
	evSeparator
	evReplaceLine
	evClose
)

// parser is the SEARCH/REPLACE state machine. It is fed one complete line at a time, so the
// same code serves Apply (whole diff) and Preview (growing diff, each line seen once).
type parser struct {
	state  parseState
	line   int // number of lines fed so far
	cur    Block
	blocks []Block
}

// feed consumes one diff line (without its '\n'; a trailing '\r' is dropped here so a CRLF
// diff reads as LF).
func (p *parser) feed(raw string) (event, *ApplyError) {
	p.line++
	raw = strings.TrimSuffix(raw, "\r")
	m := classify(raw)
	if m == broken {
		return evNone, formatError(ErrMalformedMarker, p.blockNo(), p.line, raw, "broken")
	}
	switch p.state {
	case outside:
		switch m {
		case searchMarker:
			p.cur = Block{Line: p.line}
			p.state = inSearch
			return evOpen, nil
		case replaceMarker:
			return evNone, formatError(ErrMisplacedMarker, 0, p.line, raw, "replace-outside")
		}
		// Text between blocks, including a stray separator, is commentary.
		return evNone, nil
	case inSearch:
		switch m {
		case searchMarker:
			return evNone, formatError(ErrMisplacedMarker, p.blockNo(), p.line, raw, "search-in-block")
		case separator:
			p.state = inReplace
			return evSeparator, nil
		case replaceMarker:
			return evNone, formatError(ErrMisplacedMarker, p.blockNo(), p.line, raw, "replace-before-separator")
		}
		p.cur.Search = append(p.cur.Search, raw)
		return evSearchLine, nil
	default: // inReplace
		switch m {
		case searchMarker:
			return evNone, formatError(ErrMisplacedMarker, p.blockNo(), p.line, raw, "search-in-block")
		case separator:
			return evNone, formatError(ErrMisplacedMarker, p.blockNo(), p.line, raw, "second-separator")
		case replaceMarker:
			p.blocks = append(p.blocks, p.cur)
			p.cur = Block{}
			p.state = outside
			return evClose, nil
		}
		p.cur.Replace = append(p.cur.Replace, raw)
		return evReplaceLine, nil
	}
}

// blockNo is the 1-based number of the block being read (or about to be).
func (p *parser) blockNo() int {
	if p.state == outside {
		return 0
	}
	return len(p.blocks) + 1
}

// finish checks the end of a complete diff (the tool call closed and the reply ended
// normally). A last block still in its REPLACE section is closed here: the model wrote all it
// meant to and only left out the marker, as models often do, and Cline accepts it too. A diff
// that stops inside a SEARCH section cannot be completed that way, since the new lines are
// missing altogether, so that stays an error.
func (p *parser) finish() *ApplyError {
	switch p.state {
	case inSearch:
		return formatError(ErrUnclosedBlock, p.blockNo(), p.cur.Line, "", "unclosed")
	case inReplace:
		// A last line that is the start of a REPLACE marker was meant as the marker; taking
		// it for file content would write half a marker into the file.
		if n := len(p.cur.Replace); n > 0 && halfReplace(p.cur.Replace[n-1]) {
			return formatError(ErrMalformedMarker, p.blockNo(), p.line, p.cur.Replace[n-1], "broken")
		}
		p.blocks = append(p.blocks, p.cur)
		p.cur = Block{}
		p.state = outside
	}
	if len(p.blocks) == 0 {
		return formatError(ErrNoBlocks, 0, 0, "", "no-blocks")
	}
	return nil
}

// halfReplace reports whether line, trimmed, is a REPLACE marker cut short: three or more
// `+` (or legacy `>`), optionally followed by a space and the first letters of REPLACE.
func halfReplace(line string) bool {
	t := strings.TrimSpace(line)
	run := 0
	for run < len(t) && (t[run] == '+' || t[run] == '>') {
		run++
	}
	if run < 3 || !allByte(t[:run], t[0]) {
		return false
	}
	rest := t[run:]
	if rest == "" {
		return true
	}
	word, ok := strings.CutPrefix(rest, " ")
	return ok && word != "" && len(word) < len("REPLACE") && strings.HasPrefix("REPLACE", word)
}

// ParseBlocks splits a complete diff into blocks (see finish for how its end is judged). The
// error, if any, is an *ApplyError.
func ParseBlocks(diff string) ([]Block, error) {
	var p parser
	for len(diff) > 0 {
		i := strings.IndexByte(diff, '\n')
		line := diff
		if i >= 0 {
			line, diff = diff[:i], diff[i+1:]
		} else {
			diff = ""
		}
		if _, err := p.feed(line); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.blocks, nil
}
