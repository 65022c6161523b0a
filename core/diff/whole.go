package diff

import "strings"

// ApplyWholeFile returns content (a write_to_file body) as it should be written over
// original: with original's BOM and its line-ending style (CRLF if most of its lines use
// CRLF). Whether content ends with a newline is the model's choice and is kept. A nil or
// empty original means a new file: content is returned as written, LF endings.
func ApplyWholeFile(original []byte, content string) []byte {
	f := newFile(original)
	body := strings.TrimPrefix(content, string(bom))
	body = strings.ReplaceAll(body, "\r\n", "\n")
	if f.eol == "\r\n" {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	out := make([]byte, 0, len(body)+len(bom))
	if f.bom && body != "" {
		out = append(out, bom...)
	}
	return append(out, body...)
}

// StripFences removes a Markdown code fence that wraps the whole content, which models add
// around file bodies by habit. Both the opening line (``` plus an optional language) and the
// closing line (```) must be present, and nothing between them may be a fence of the same
// kind: a Markdown file that merely starts and ends with code blocks is left alone.
func StripFences(content string) string {
	lines := strings.SplitAfter(content, "\n")
	first, last := 0, len(lines)-1
	for first <= last && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	for last >= first && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if last <= first {
		return content
	}
	open := strings.TrimSpace(lines[first])
	ticks := len(open) - len(strings.TrimLeft(open, "`"))
	// The opening line may carry a language tag ("go", "tsx title=x") but no more backticks.
	if ticks < 3 || strings.Contains(open[ticks:], "`") {
		return content
	}
	fence := open[:ticks]
	if strings.TrimSpace(lines[last]) != fence {
		return content
	}
	for _, l := range lines[first+1 : last] {
		if strings.HasPrefix(strings.TrimSpace(l), fence) {
			return content
		}
	}
	return strings.Join(lines[first+1:last], "")
}
