package cli

import (
	"os"
	"strings"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// The tags a model wraps its thinking in, inside its text (the chat folds these sections;
// README, "Using it from the command line").
const (
	thinkingOpen  = "<thinking>"
	thinkingClose = "</thinking>"
)

// ANSI faint and normal intensity: thinking is dimmed on a terminal.
const (
	faintOn  = "\x1b[2m"
	faintOff = "\x1b[22m"
)

// thinkingSink receives a text row split into its plain text and its thinking sections.
type thinkingSink interface {
	text(s string)
	thinkStart()
	think(s string)
	thinkEnd()
}

// thinkingSplit separates <thinking> sections from a text row as it streams: a tag split across
// deltas is held back until it is whole. Whitespace at the edges of a section, and between its
// end and the text that follows, is dropped; an empty section is not shown. An unclosed section
// runs to the row's end.
type thinkingSplit struct {
	in      bool   // inside a section
	held    string // the tail of what was fed that may begin the next tag
	ws      string // inside: whitespace not written yet (dropped if the section ends)
	started bool   // inside: some thinking was written (its label too)
	skipWS  bool   // after a section: leading whitespace of the text is dropped
}

func (t *thinkingSplit) feed(s string, out thinkingSink) {
	s, t.held = t.held+s, ""
	for s != "" {
		tag := thinkingOpen
		if t.in {
			tag = thinkingClose
		}
		i := strings.Index(s, tag)
		if i < 0 {
			k := tagPrefixAtEnd(s, tag)
			t.emit(s[:len(s)-k], out)
			t.held = s[len(s)-k:]
			return
		}
		t.emit(s[:i], out)
		s = s[i+len(tag):]
		if t.in {
			t.end(out)
			t.skipWS = true
		} else {
			t.in, t.started = true, false
		}
	}
}

// finish writes what was held back (it was no tag) and ends an unclosed section.
func (t *thinkingSplit) finish(out thinkingSink) {
	held := t.held
	t.held = ""
	t.emit(held, out)
	if t.in {
		t.end(out)
	}
}

// end leaves a section; one with nothing in it was not shown at all.
func (t *thinkingSplit) end(out thinkingSink) {
	if t.started {
		out.thinkEnd()
	}
	t.in, t.ws, t.started = false, "", false
}

func (t *thinkingSplit) emit(s string, out thinkingSink) {
	if !t.in {
		if t.skipWS {
			s = strings.TrimLeft(s, " \t\r\n")
			if s == "" {
				return
			}
			t.skipWS = false
		}
		if s != "" {
			out.text(s)
		}
		return
	}
	if !t.started {
		s = strings.TrimLeft(s, " \t\r\n")
	}
	s = t.ws + s
	body := strings.TrimRight(s, " \t\r\n")
	t.ws = s[len(body):]
	if body != "" {
		if !t.started {
			t.started = true
			out.thinkStart()
		}
		out.think(body)
	}
}

// tagPrefixAtEnd is the length of the longest end of s that begins tag (and is shorter).
func tagPrefixAtEnd(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}

// textOut prints a text row's parts for the printer: thinking labelled, dimmed when Out is a
// terminal.
type textOut struct{ p *printer }

func (o textOut) text(s string) { o.p.out("%s", s) }

func (o textOut) thinkStart() {
	o.p.endLine()
	o.p.out("%s", o.p.faint("thinking:")+" ")
}

func (o textOut) think(s string) { o.p.out("%s", o.p.faint(s)) }

func (o textOut) thinkEnd() { o.p.out("\n") }

// faint dims s when Out is a terminal.
func (p *printer) faint(s string) string {
	if p.outTTY == nil {
		f, ok := p.io.Out.(*os.File)
		tty := ok && isTerminal(f)
		p.outTTY = &tty
	}
	if !*p.outTTY {
		return s
	}
	return faintOn + s + faintOff
}

// showText prints (more of) a text row through its thinking split; final ends the row.
func (p *printer) showText(m *cairnv1.Message, s string, final bool) {
	if p.splits == nil {
		p.splits = map[int32]*thinkingSplit{}
	}
	t := p.splits[m.GetIndex()]
	if t == nil {
		t = &thinkingSplit{}
		p.splits[m.GetIndex()] = t
	}
	t.feed(s, textOut{p})
	if final {
		t.finish(textOut{p})
		delete(p.splits, m.GetIndex())
	}
}

// finishText ends a text row that streamed: what its split held back is written.
func (p *printer) finishText(m *cairnv1.Message) {
	if t := p.splits[m.GetIndex()]; t != nil && m.GetSay() == cairnv1.SayKind_SAY_KIND_TEXT {
		t.finish(textOut{p})
		delete(p.splits, m.GetIndex())
	}
}
