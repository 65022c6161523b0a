package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Word is one shell word after quote removal.
type Word struct {
	// Text is the word as the command receives it. It is only exact when Dynamic is false;
	// otherwise it holds the literal pieces with the computed pieces left out.
	Text string
	// Dynamic is set when part of the word is only known when it runs: a parameter or
	// arithmetic expansion, a command or process substitution, brace expansion, or a $'…'
	// string with escapes.
	Dynamic bool
	// Glob is set when the word holds an unquoted *, ? or [ and may name several files.
	Glob bool

	// src is the word as the line spells it, kept for a Dynamic word so that a message can
	// show it (`$d/hooks/p`); see Shown.
	src string
}

// Shown is the word as the user should see it in a message: as written in the line when part
// of it is only known at run time, else its text.
func (w Word) Shown() string {
	if w.src != "" {
		return w.src
	}
	return w.Text
}

// Literal reports whether the word is fully known and names exactly one thing.
func (w Word) Literal() bool { return !w.Dynamic && !w.Glob }

func wordOf(w *syntax.Word) Word {
	out := hdocWordOf(w)
	if !out.Dynamic && hasBraceExp(w) {
		out.Dynamic = true
		out.src = printed(w)
	}
	return out
}

// hdocWordOf is wordOf for a here-document body, which bash does not brace-expand.
func hdocWordOf(w *syntax.Word) Word {
	var out Word
	var b strings.Builder
	var visit func(parts []syntax.WordPart, quoted bool)
	visit = func(parts []syntax.WordPart, quoted bool) {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(unescapeDouble(p.Value))
					continue
				}
				text, glob := unescapePlain(p.Value)
				out.Glob = out.Glob || glob
				b.WriteString(text)
			case *syntax.SglQuoted:
				if p.Dollar && strings.Contains(p.Value, `\`) {
					out.Dynamic = true
				}
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				visit(p.Parts, true)
			default:
				out.Dynamic = true
			}
		}
	}
	visit(w.Parts, false)
	out.Text = b.String()
	if out.Dynamic {
		out.src = printed(w)
	}
	return out
}

// printed is w as the line spells it.
func printed(w *syntax.Word) string {
	var src strings.Builder
	if err := syntax.NewPrinter().Print(&src, w); err != nil {
		return ""
	}
	return src.String()
}

func wordsOf(ws []*syntax.Word) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = wordOf(w)
	}
	return out
}

// unescapePlain removes the backslashes of an unquoted literal and reports whether it holds
// glob characters. Brace expansion, which may span quoted parts ({"-r",x}), is found on the
// whole word (hasBraceExp).
func unescapePlain(s string) (text string, glob bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
			continue
		case '*', '?', '[':
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

// unescapeDouble removes the backslashes that are special inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
