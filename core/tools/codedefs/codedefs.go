// Package codedefs implements list_code_definition_names: a tree-sitter outline of the
// classes, functions, methods, interfaces and types in the top-level source files of a folder.
//
// Each language has a query in queries/<lang>.scm. Every capture is named `name.<kind>` and
// marks the identifier of one definition; the outline shows the source line that identifier
// is on, which for decorated or annotated definitions is the signature rather than the
// decorator. The output mimics Cline's shape so prompts and models trained on it still fit.
package codedefs

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/cairnhq/cairn/core/lazy"
)

//go:embed queries/*.scm
var queryFS embed.FS

// Definition is one named definition found in a source file.
type Definition struct {
	// Kind is the capture suffix: class, function, method, interface, type, module, impl,
	// macro, property.
	Kind string
	// Name is the identifier as written.
	Name string
	// Line is the 1-based line the name is on.
	Line int
	// Text is that whole line, without its line ending.
	Text string
}

// File is one file's definitions as Format prints them.
type File struct {
	Name string // shown as is: relative to the listed folder
	Defs []Definition
}

// language pairs a grammar with its query, compiled once on first use: queries are immutable
// after compilation and safe to share between cursors.
type language struct {
	query string // file name under queries/
	get   func() *sitter.Language

	once     sync.Once
	lang     *sitter.Language
	compiled *sitter.Query
	err      error
}

func (l *language) load() (*sitter.Language, *sitter.Query, error) {
	l.once.Do(func() {
		src, err := queryFS.ReadFile("queries/" + l.query)
		if err != nil {
			l.err = fmt.Errorf("codedefs: read query %s: %w", l.query, err)
			return
		}
		l.lang = l.get()
		l.compiled, l.err = sitter.NewQuery(src, l.lang)
		if l.err != nil {
			l.err = fmt.Errorf("codedefs: compile %s: %w", l.query, l.err)
		}
	})
	return l.lang, l.compiled, l.err
}

var (
	langC       = &language{query: "c.scm", get: c.GetLanguage}
	langCPP     = &language{query: "cpp.scm", get: cpp.GetLanguage}
	langJS      = &language{query: "javascript.scm", get: javascript.GetLanguage}
	langTS      = &language{query: "typescript.scm", get: typescript.GetLanguage}
	langTSX     = &language{query: "typescript.scm", get: tsx.GetLanguage}
	byExtension = lazy.Value[map[string]*language]{New: func() map[string]*language {
		return map[string]*language{
			".go":    {query: "go.scm", get: golang.GetLanguage},
			".js":    langJS,
			".jsx":   langJS,
			".ts":    langTS,
			".tsx":   langTSX,
			".py":    {query: "python.scm", get: python.GetLanguage},
			".rs":    {query: "rust.scm", get: rust.GetLanguage},
			".java":  {query: "java.scm", get: java.GetLanguage},
			".c":     langC,
			".h":     langC,
			".cpp":   langCPP,
			".hpp":   langCPP,
			".cs":    {query: "csharp.scm", get: csharp.GetLanguage},
			".rb":    {query: "ruby.scm", get: ruby.GetLanguage},
			".php":   {query: "php.scm", get: php.GetLanguage},
			".swift": {query: "swift.scm", get: swift.GetLanguage},
			".kt":    {query: "kotlin.scm", get: kotlin.GetLanguage},
		}
	}}
)

// Supported reports whether path has an extension Parse understands.
func Supported(path string) bool {
	_, ok := byExtension.Get()[strings.ToLower(filepath.Ext(path))]
	return ok
}

// Extensions lists the supported extensions (with dot), sorted.
func Extensions() []string {
	out := make([]string, 0, len(byExtension.Get()))
	for ext := range byExtension.Get() {
		out = append(out, ext)
	}
	sort.Strings(out)
	return out
}

// Parse returns the definitions in src, in source order, one per name. The language comes
// from path's extension; an unknown one is ErrUnsupported. Cancelling ctx stops the parse.
func Parse(ctx context.Context, path string, src []byte) ([]Definition, error) {
	l, ok := byExtension.Get()[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, filepath.Ext(path))
	}
	lang, q, err := l.load()
	if err != nil {
		return nil, err
	}

	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang)
	tree, err := parser.ParseCtx(ctx, nil, src)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrParse, path, err)
	}
	defer tree.Close()

	cursor := sitter.NewQueryCursor()
	defer cursor.Close()
	cursor.Exec(q, tree.RootNode())

	// Several patterns may capture the same identifier (a Python method is also a function);
	// the earliest pattern in the .scm file is the most specific and wins.
	type hit struct {
		pattern uint16
		def     Definition
		start   uint32
	}
	byNode := map[uint32]hit{}
	for {
		m, ok := cursor.NextMatch()
		if !ok {
			break
		}
		m = cursor.FilterPredicates(m, src)
		for _, capt := range m.Captures {
			kind, ok := strings.CutPrefix(q.CaptureNameForId(capt.Index), "name.")
			if !ok {
				continue
			}
			start := capt.Node.StartByte()
			if prev, seen := byNode[start]; seen && prev.pattern <= m.PatternIndex {
				continue
			}
			row := int(capt.Node.StartPoint().Row)
			byNode[start] = hit{pattern: m.PatternIndex, start: start, def: Definition{
				Kind: kind,
				Name: capt.Node.Content(src),
				Line: row + 1,
				Text: lineAt(src, capt.Node.StartByte()),
			}}
		}
	}

	hits := make([]hit, 0, len(byNode))
	for _, h := range byNode {
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].start < hits[j].start })
	defs := make([]Definition, len(hits))
	for i, h := range hits {
		defs[i] = h.def
	}
	return defs, nil
}

// lineAt returns the line containing byte offset off, without its line ending.
func lineAt(src []byte, off uint32) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += int(off)
	}
	return strings.TrimRight(string(src[start:end]), "\r")
}

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
