package search

import (
	"fmt"
	"strings"
)

// Format renders results the way Cline shows them to the model: a count line, then per file
// its path (as rel returns it) and its line groups between `│----` rules, every line prefixed
// with `│`. Output stops at MaxOutputBytes with a note.
func (r Results) Format(rel func(abs string) string) string {
	var b strings.Builder
	switch {
	case r.More:
		b.WriteString(message("more", r.Total))
	case r.Total == 1:
		b.WriteString(message("found", "1 result"))
	default:
		b.WriteString(message("found", fmt.Sprintf("%d results", r.Total)))
	}
	b.WriteString("\n\n")
	var block strings.Builder
	for _, f := range r.Files {
		block.Reset()
		block.WriteString(rel(f.Path))
		block.WriteString("\n│----\n")
		for i, g := range f.Groups {
			if i > 0 {
				block.WriteString("│----\n")
			}
			for _, l := range g {
				block.WriteString("│")
				block.WriteString(strings.TrimRight(l.Text, " \t"))
				block.WriteString("\n")
			}
		}
		block.WriteString("│----\n\n")
		if b.Len()+block.Len() > MaxOutputBytes {
			b.WriteString(message("cut"))
			return b.String()
		}
		b.WriteString(block.String())
	}
	return strings.TrimRight(b.String(), "\n")
}
