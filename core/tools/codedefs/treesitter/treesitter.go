// Package treesitter finds the definitions in source files with tree-sitter, for codedefs.
// Its grammars are C code (cgo), so it runs in cairn-helper only, never in the daemon
// (core/tools/codedefs; docs/performance.md, "P5 — the daemon at rest"); `make
// check-imports` fails if the daemon links it.
//
// Each language has a query in queries/<lang>.scm. Every capture is named `name.<kind>` and
// marks the identifier of one definition; the outline shows the source line that identifier
// is on, which for decorated or annotated definitions is the signature rather than the
// decorator.
package treesitter

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
	"github.com/cairnhq/cairn/core/tools/codedefs"
)

//go:embed queries/*.scm
var queryFS embed.FS

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
			l.err = fmt.Errorf("treesitter: read query %s: %w", l.query, err)
			return
		}
		l.lang = l.get()
		l.compiled, l.err = sitter.NewQuery(src, l.lang)
		if l.err != nil {
			l.err = fmt.Errorf("treesitter: compile %s: %w", l.query, l.err)
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

// Parse returns the definitions in src, in source order, one per name. The language comes
// from path's extension; an unknown one is ErrUnsupported. Cancelling ctx stops the parse.
func Parse(ctx context.Context, path string, src []byte) ([]codedefs.Definition, error) {
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
		def     codedefs.Definition
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
			byNode[start] = hit{pattern: m.PatternIndex, start: start, def: codedefs.Definition{
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
	defs := make([]codedefs.Definition, len(hits))
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

// Extensions lists the extensions with a grammar (with dot), sorted.
func Extensions() []string {
	out := make([]string, 0, len(byExtension.Get()))
	for ext := range byExtension.Get() {
		out = append(out, ext)
	}
	sort.Strings(out)
	return out
}

// Outline parses the files at paths, in that order. A file that cannot be read, is larger
// than codedefs.MaxFileBytes or has no grammar is left out: one bad file does not hide the
// others. Only a cancelled ctx is an error.
func Outline(ctx context.Context, paths []string) ([]codedefs.Parsed, error) {
	out := make([]codedefs.Parsed, 0, len(paths))
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || st.Size() > codedefs.MaxFileBytes {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > codedefs.MaxFileBytes {
			continue
		}
		defs, err := Parse(ctx, p, src)
		if errors.Is(err, ErrUnsupported) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if defs == nil {
			defs = []codedefs.Definition{}
		}
		out = append(out, codedefs.Parsed{Path: p, Defs: defs})
	}
	return out, nil
}

// maxRequest bounds one request line: the paths of the files one look parses.
const maxRequest = 64 << 20

// Serve is cairn-helper's code-definitions command (codedefs.HelperCommand): each line of r is
// a request, a JSON array of paths, and gets one line on w, a codedefs.Answer with their
// Outline. It returns at the end of r. The grammars' compiled queries stay loaded between
// requests, so the daemon keeps one helper running while it needs outlines.
func Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64<<10), maxRequest)
	enc := json.NewEncoder(w)
	for lines.Scan() {
		var ans codedefs.Answer
		var paths []string
		if err := json.Unmarshal(lines.Bytes(), &paths); err != nil {
			ans.Error = fmt.Sprintf("treesitter: want a JSON array of paths: %v", err)
		} else if ans.Files, err = Outline(ctx, paths); err != nil {
			return err
		}
		if err := enc.Encode(ans); err != nil {
			return fmt.Errorf("treesitter: answering: %w", err)
		}
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("treesitter: reading requests: %w", err)
	}
	return nil
}
