package mentions

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnhq/cairn/core/lazy"
)

// Kind says what a mention refers to.
type Kind string

// The kinds of mention.
const (
	KindFile       Kind = "file"
	KindFolder     Kind = "folder"
	KindProblems   Kind = "problems"
	KindTerminal   Kind = "terminal"
	KindGitChanges Kind = "git-changes"
	KindCommit     Kind = "commit"
	KindURL        Kind = "url"
)

// Mention is one recognised token.
type Mention struct {
	Kind Kind
	// Token is the mention exactly as written, `@` and escapes included: Text[Start:End].
	Token      string
	Start, End int
	// Value is what the token names: a workspace-relative path without the leading `/` and
	// with escapes resolved (a folder keeps its trailing `/`), the keyword, the commit hash
	// or the URL.
	Value string
}

// trailing is the punctuation that may follow a mention without being part of it.
const trailing = ".,;:!?)"

var keywords = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{
		"problems":    KindProblems,
		"terminal":    KindTerminal,
		"git-changes": KindGitChanges,
	}
}}

// Parse returns the mentions of text in order.
func Parse(text string) []Mention {
	var out []Mention
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '@')
		if j < 0 {
			break
		}
		at := i + j
		if !startsToken(text, at) {
			i = at + 1
			continue
		}
		if m, ok := parseAt(text, at); ok {
			out = append(out, m)
			i = m.End
			continue
		}
		i = at + 1
	}
	return out
}

// startsToken reports whether the `@` at index at may begin a mention: first in the text or
// right after whitespace. Anything else (a letter as in an e-mail address, a bracket, a
// colon) makes it ordinary text.
func startsToken(text string, at int) bool {
	if at == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	return unicode.IsSpace(r)
}

// parseAt recognises the mention whose `@` is text[at].
func parseAt(text string, at int) (Mention, bool) {
	rest := text[at+1:]
	switch {
	case strings.HasPrefix(rest, `"/`):
		return quotedPath(text, at)
	case strings.HasPrefix(rest, "/"):
		return plainPath(text, at)
	case strings.HasPrefix(rest, "http://"), strings.HasPrefix(rest, "https://"):
		end := trimTrailing(text, at, wordEnd(text, at+1))
		u := text[at+1 : end]
		if strings.HasSuffix(u, "://") {
			return Mention{}, false
		}
		return Mention{Kind: KindURL, Token: text[at:end], Start: at, End: end, Value: u}, true
	}
	end := trimTrailing(text, at, wordEnd(text, at+1))
	word := text[at+1 : end]
	if k, ok := keywords.Get()[word]; ok {
		return Mention{Kind: k, Token: text[at:end], Start: at, End: end, Value: word}, true
	}
	if isCommit(word) {
		return Mention{Kind: KindCommit, Token: text[at:end], Start: at, End: end, Value: word}, true
	}
	return Mention{}, false
}

// plainPath reads `@/…` up to unescaped whitespace; `\ ` is an escaped space.
func plainPath(text string, at int) (Mention, bool) {
	k := at + 1
	for k < len(text) {
		if text[k] == '\\' && k+1 < len(text) && text[k+1] == ' ' {
			k += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(text[k:])
		if unicode.IsSpace(r) {
			break
		}
		k += size
	}
	end := trimTrailing(text, at, k)
	raw := text[at+1 : end]
	value := strings.ReplaceAll(raw, `\ `, " ")
	return pathMention(text, at, end, value)
}

// quotedPath reads `@"/…"`; the closing quote must be followed by whitespace or the end,
// optionally after trailing punctuation.
func quotedPath(text string, at int) (Mention, bool) {
	body := at + 2
	q := strings.IndexAny(text[body:], "\"\n")
	if q < 0 || text[body+q] != '"' {
		return Mention{}, false
	}
	end := body + q + 1
	after := strings.TrimLeft(text[end:], trailing)
	if after != "" {
		if r, _ := utf8.DecodeRuneInString(after); !unicode.IsSpace(r) {
			return Mention{}, false
		}
	}
	return pathMention(text, at, end, text[body:end-1])
}

// pathMention builds a file or folder mention from value (starting with `/`). A path that
// names the workspace root itself (`@/`) is not a mention: it would paste the whole project.
func pathMention(text string, at, end int, value string) (Mention, bool) {
	if path.Clean(value) == "/" {
		return Mention{}, false
	}
	kind := KindFile
	if strings.HasSuffix(value, "/") {
		kind = KindFolder
	}
	return Mention{Kind: kind, Token: text[at:end], Start: at, End: end, Value: strings.TrimPrefix(value, "/")}, true
}

// wordEnd returns the index of the first whitespace at or after i.
func wordEnd(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// trimTrailing moves end back over trailing punctuation, never past the `@` and its first
// character.
func trimTrailing(text string, at, end int) int {
	for end > at+2 && strings.IndexByte(trailing, text[end-1]) >= 0 {
		end--
	}
	return end
}

func isCommit(word string) bool {
	if len(word) < 7 || len(word) > 40 {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
