// Package mdsections splits the embedded markdown files that hold the model-facing texts into
// their sections. Each file has one `## key` heading per text; the body under a heading, up to
// the next one, is that key's text. Text before the first heading (the file's title and notes
// for whoever edits it) is not a section. Every package that keeps such a file reads it here,
// so the rule for what a section is lives in one place (docs/architecture.md, level 0).
package mdsections

import (
	"strings"
	"text/template"
)

// Split returns the sections of md by key. Keys and bodies are trimmed of surrounding white
// space; a later section with the same key replaces an earlier one.
func Split(md string) map[string]string {
	out := map[string]string{}
	// The leading newline lets a heading on the file's first line count like any other.
	for _, part := range strings.Split("\n"+md, "\n## ")[1:] {
		key, body, _ := strings.Cut(part, "\n")
		out[strings.TrimSpace(key)] = strings.TrimSpace(body)
	}
	return out
}

// Set is a file's sections parsed as text/templates, by key.
type Set map[string]*template.Template

// Templates parses every section of md as a text/template named after its key. The files are
// embedded in the binary, so a section that does not parse is a defect of the build: it
// panics, and the first test of the package that reads the file shows it.
func Templates(md string) Set {
	out := Set{}
	for key, body := range Split(md) {
		out[key] = template.Must(template.New(key).Parse(body))
	}
	return out
}

// Render executes section key with data. It reports false when there is no such section or
// the template fails on data (both defects the caller's tests catch); the caller then writes
// a plainer text of its own rather than nothing.
func (s Set) Render(key string, data any) (string, bool) {
	t, ok := s[key]
	if !ok {
		return "", false
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", false
	}
	return b.String(), true
}
