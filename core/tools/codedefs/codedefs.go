// Package codedefs implements list_code_definition_names: an outline of the classes,
// functions, methods, interfaces and types in the top-level source files of a folder, and the
// definitions by name that code navigation falls back on without a language server.
//
// The outline comes from tree-sitter, whose grammars are C code. C code does not run in the
// daemon: a grammar that crashes on some file would take every task down with it, and linking
// C makes every process of the binary start slower (docs/performance.md, "P5 — the daemon at
// rest"). So the parsing is core/tools/codedefs/treesitter, run in cairn-helper (core/helper):
// this package picks the files, hands their paths to `cairn-helper code-definitions` in one
// request, and formats what it answers. The helper stays running while outlines are asked
// for, with its grammars' queries compiled (worker.go). The output mimics Cline's shape so prompts and models
// trained on it still fit.
package codedefs

import (
	"path/filepath"
	"slices"
	"strings"
)

// Definition is one named definition found in a source file.
type Definition struct {
	// Kind is the capture suffix: class, function, method, interface, type, module, impl,
	// macro, property.
	Kind string `json:"kind"`
	// Name is the identifier as written.
	Name string `json:"name"`
	// Line is the 1-based line the name is on.
	Line int `json:"line"`
	// Text is that whole line, without its line ending.
	Text string `json:"text"`
}

// File is one file's definitions as Format prints them.
type File struct {
	Name string // shown as is: relative to the listed folder
	Defs []Definition
}

// Parsed is one file of the helper's answer: its path as asked and its definitions, in
// source order. A file the helper could not read, or larger than MaxFileBytes, is left out
// of the answer.
type Parsed struct {
	Path string       `json:"path"`
	Defs []Definition `json:"defs"`
}

// HelperCommand is cairn-helper's command for parsing. Each line of its stdin is a request, a
// JSON array of absolute paths; each gets one line on its stdout, an Answer. It runs until its
// stdin ends.
const HelperCommand = "code-definitions"

// Answer is the helper's answer to one request: the files it parsed, in the order asked, or
// why it refused the request.
type Answer struct {
	Files []Parsed `json:"files,omitempty"`
	Error string   `json:"error,omitempty"`
}

// extensions are the file extensions with a grammar (treesitter checks it has one for each).
var extensions = []string{".c", ".cpp", ".cs", ".go", ".h", ".hpp", ".java", ".js", ".jsx",
	".kt", ".php", ".py", ".rb", ".rs", ".swift", ".ts", ".tsx"}

// Supported reports whether path has an extension with a grammar.
func Supported(path string) bool {
	return slices.Contains(extensions, strings.ToLower(filepath.Ext(path)))
}

// Extensions lists the supported extensions (with dot), sorted.
func Extensions() []string { return append([]string(nil), extensions...) }

// NoDefinitions is the whole output when no file has a definition.
const NoDefinitions = "No source code definitions found."

// Format renders files in Cline's outline shape: the file name, then its definition lines
// prefixed with `│`, with a `|----` line opening and closing the block and between two
// definitions that are not on adjacent lines; a blank line after each file. Files without
// definitions are left out; if none is left the result is NoDefinitions.
func Format(files []File) string {
	var b strings.Builder
	for _, f := range files {
		if len(f.Defs) == 0 {
			continue
		}
		b.WriteString(f.Name)
		b.WriteString("\n|----\n")
		last := -1
		for _, d := range f.Defs {
			if d.Line == last {
				continue // two names on one line show the line once
			}
			if last != -1 && d.Line > last+1 {
				b.WriteString("|----\n")
			}
			b.WriteString("│")
			b.WriteString(d.Text)
			b.WriteString("\n")
			last = d.Line
		}
		b.WriteString("|----\n\n")
	}
	if b.Len() == 0 {
		return NoDefinitions
	}
	return strings.TrimRight(b.String(), "\n")
}
