package envdetails

import (
	"embed"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// Model-facing text, written once and embedded (docs/conventions.md, "Comments and model-facing
// text").
//
//go:embed text/*.md
var textFS embed.FS

// texts are the files of text/, read on first use, without their surrounding space.
var texts = lazy.Value[map[string]string]{New: func() map[string]string {
	entries, err := textFS.ReadDir("text")
	if err != nil {
		panic("envdetails: embedded texts: " + err.Error()) // caught by every test of the package
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		b, err := textFS.ReadFile("text/" + e.Name())
		if err != nil {
			panic("envdetails: embedded text " + e.Name() + ": " + err.Error())
		}
		out[strings.TrimSuffix(e.Name(), ".md")] = strings.TrimSpace(string(b))
	}
	return out
}}

// text is the embedded text/NAME.md.
func text(name string) string {
	t, ok := texts.Get()[name]
	if !ok {
		panic("envdetails: missing embedded text " + name) // caught by every test of the package
	}
	return t
}
