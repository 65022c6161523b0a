package tools

import (
	"fmt"

	"github.com/cairnhq/cairn/core/internal/mdsections"
)

// Sections are a tool family's model-facing sentences, read from an embedded markdown file
// with one `## key` section each, so the wording lives in .md files and not in Go strings.
type Sections map[string]string

// ParseSections splits md at its `## key` headings (core/internal/mdsections).
func ParseSections(md string) Sections {
	return Sections(mdsections.Split(md))
}

// Format returns section key formatted with args (fmt verbs). A missing key is a programming
// error that the family's tests catch; the text then names the key.
func (s Sections) Format(key string, args ...any) string {
	text, ok := s[key]
	if !ok {
		return "missing message " + key
	}
	if len(args) == 0 {
		return text
	}
	return fmt.Sprintf(text, args...)
}
