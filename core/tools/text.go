package tools

import (
	"fmt"
	"sync"

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

// Texts are the Sections of an embedded markdown file, split on their first use. A package
// declares them as a composite literal, `var messages = tools.Texts{MD: &messagesMD}`, which
// runs no code when a process starts (core/lazy says why).
type Texts struct {
	// MD is the embedded file's content.
	MD *string

	once     sync.Once
	sections Sections
}

// Sections returns the file's sections.
func (t *Texts) Sections() Sections {
	t.once.Do(func() { t.sections = ParseSections(*t.MD) })
	return t.sections
}

// Format is Sections().Format.
func (t *Texts) Format(key string, args ...any) string { return t.Sections().Format(key, args...) }
