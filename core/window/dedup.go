package window

import (
	"path"
	"regexp"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
)

// A copy is one span of a user message's text holding a file's content.
type copyAt struct {
	msg, part  int // message and content index
	start, end int // byte span of the content in the part's text
	path       string
	// whole is false for a slice of the file (a line range or a truncated read): it can be
	// replaced by a later whole copy but does not replace earlier ones.
	whole bool
}

const readHeaderPrefix = "[read_file for '"
const readHeaderSuffix = "'] Result:"

// The patterns and the error prefix below are built on first use, not at start-up: every
// process start (the daemon, each `cairn tool`) would pay for them otherwise.

// tagged are the elements whose inner text is a file's content: edit results' final content
// and file mentions (also the files listed inside a folder mention).
var tagged = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`<(final_file_content|file_content) path="([^"]*)">\n?`)
}}

// sliceNote matches the note read_file ends a partial read with (core/tools/readfile
// messages "range" and "truncated").
var sliceNote = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`\n\[(Showing lines|Lines) \d+-\d+ of \d+[^\n]*\]\s*$`)
}}

// toolErrorPrefix is the first line of every tool error result (rendering it parses the
// feedback templates).
var toolErrorPrefix = lazy.Value[string]{New: func() string {
	first, _, _ := strings.Cut(prompt.ToolError("x"), "\n")
	return first
}}

// dedup returns msgs with every copy of a file's content that a later whole copy supersedes
// replaced by a note. Messages it changes are copied; msgs and their contents are untouched.
func dedup(msgs []llm.Message) []llm.Message {
	copies := findCopies(msgs)
	latest := map[string]int{} // path → index in copies of its last whole copy
	for i, c := range copies {
		if c.whole {
			latest[c.path] = i
		}
	}
	var stale []copyAt
	for i, c := range copies {
		if l, ok := latest[c.path]; ok && i < l {
			stale = append(stale, c)
		}
	}
	if len(stale) == 0 {
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	// Replace from the end so earlier spans of the same text keep their offsets.
	for i := len(stale) - 1; i >= 0; i-- {
		c := stale[i]
		m := out[c.msg]
		if &m.Content[0] == &msgs[c.msg].Content[0] {
			m.Content = append([]llm.Content(nil), m.Content...)
		}
		text := m.Content[c.part].Text
		m.Content[c.part].Text = text[:c.start] + note("superseded", c.path) + text[c.end:]
		out[c.msg] = m
	}
	return out
}

// findCopies lists the copies of file contents in the user messages of msgs, in order.
func findCopies(msgs []llm.Message) []copyAt {
	var out []copyAt
	for mi, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		for pi, c := range m.Content {
			if c.Type != llm.ContentText && c.Type != llm.ContentToolResult {
				continue
			}
			out = append(out, copiesIn(mi, pi, c.Text)...)
		}
	}
	return out
}

func copiesIn(mi, pi int, text string) []copyAt {
	var out []copyAt
	if rest, ok := strings.CutPrefix(text, readHeaderPrefix); ok {
		p, _, ok := strings.Cut(rest, readHeaderSuffix+"\n")
		if ok && !strings.Contains(p, "\n") {
			start := len(readHeaderPrefix) + len(p) + len(readHeaderSuffix) + 1
			body := text[start:]
			if isContent(body) {
				out = append(out, copyAt{msg: mi, part: pi, start: start, end: len(text),
					path: cleanPath(p), whole: !sliceNote.Get().MatchString(body)})
			}
			return out // a read result holds one file; tags inside it are the file's text
		}
	}
	// Scan on past each element's end: a file's text may itself contain such tags.
	for pos := 0; pos < len(text); {
		loc := tagged.Get().FindStringSubmatchIndex(text[pos:])
		if loc == nil {
			break
		}
		name := text[pos+loc[2] : pos+loc[3]]
		p := text[pos+loc[4] : pos+loc[5]]
		start := pos + loc[1]
		closing := "</" + name + ">"
		n := strings.Index(text[start:], closing)
		if n < 0 {
			break
		}
		body := strings.TrimSuffix(text[start:start+n], "\n")
		if isContent(body) {
			out = append(out, copyAt{msg: mi, part: pi, start: start, end: start + len(body),
				path: cleanPath(p), whole: true})
		}
		pos = start + n + len(closing)
	}
	return out
}

// isContent tells a file's content from a short message in its place: an error, a denial, an
// image placeholder. Such messages must not make an earlier real copy look superseded. A
// one-line file of under 200 characters is not worth a note either way.
func isContent(body string) bool {
	if strings.HasPrefix(body, toolErrorPrefix.Get()) || strings.HasPrefix(body, prompt.ToolDenied()) {
		return false
	}
	return strings.Contains(strings.TrimSpace(body), "\n") || len(body) >= 200
}

func cleanPath(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), "\\", "/")
	return path.Clean(strings.TrimPrefix(p, "./"))
}
