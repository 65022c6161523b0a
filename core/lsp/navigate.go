package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"go.lsp.dev/protocol"
)

// Location is a place in a file a server points at: absolute path, 1-based line and 1-based
// column (in bytes).
type Location struct {
	Path         string
	Line, Column int
}

// Definition returns where the symbol at abs's line and column (1-based; the column in bytes)
// is defined, as the file's language server says. ok is false when no server serves the file
// (not a language Cairn knows, none installed, outside roots): the caller may fall back.
func (m *Manager) Definition(ctx context.Context, roots []string, abs string, line, column int) (locs []Location, ok bool, err error) {
	return m.navigate(ctx, roots, abs, line, column, protocol.MethodTextDocumentDefinition)
}

// References returns where the symbol at abs's line and column is used, its declaration
// included; ok as for Definition.
func (m *Manager) References(ctx context.Context, roots []string, abs string, line, column int) (locs []Location, ok bool, err error) {
	return m.navigate(ctx, roots, abs, line, column, protocol.MethodTextDocumentReferences)
}

func (m *Manager) navigate(ctx context.Context, roots []string, abs string, line, column int, method string) ([]Location, bool, error) {
	lang, id, ok := languageOf(abs)
	if !ok {
		return nil, false, nil
	}
	root := rootOf(roots, abs)
	if root == "" {
		return nil, false, nil
	}
	c, _, err := m.client(lang, root)
	if c == nil || err != nil {
		return nil, c != nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, m.cfg.StartWait)
	defer cancel()
	if err := c.usable(wctx); err != nil {
		return nil, true, err
	}
	u, _, opened, err := c.sync(wctx, abs, id)
	if err != nil {
		return nil, true, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if opened {
		m.watchDir(lang, root, filepath.Dir(abs))
	}
	text, err := os.ReadFile(abs)
	if err != nil {
		return nil, true, err
	}
	pos := protocol.Position{Line: uint32(max(line-1, 0)), Character: utf16Column(lineText(string(text), line), column)}
	doc := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}
	var params any = &protocol.DefinitionParams{TextDocumentPositionParams: doc}
	if method == protocol.MethodTextDocumentReferences {
		params = &protocol.ReferenceParams{TextDocumentPositionParams: doc, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	}
	var raw json.RawMessage
	if _, err := c.conn.Call(wctx, method, params, &raw); err != nil {
		return nil, true, fmt.Errorf("%w: the %s language server did not answer: %w", ErrUnavailable, lang.Name, err)
	}
	return locations(raw), true, nil
}

// locations reads a definition or references answer: a Location, a list of them, or a list
// of LocationLinks (the target's selection range is the place).
func locations(raw json.RawMessage) []Location {
	var list []struct {
		URI                  protocol.DocumentURI `json:"uri"`
		Range                *protocol.Range      `json:"range"`
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange *protocol.Range      `json:"targetSelectionRange"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		var one protocol.Location
		if json.Unmarshal(raw, &one) != nil || one.URI == "" {
			return nil
		}
		return []Location{place(one.URI, one.Range.Start)}
	}
	out := make([]Location, 0, len(list))
	for _, l := range list {
		switch {
		case l.URI != "" && l.Range != nil:
			out = append(out, place(l.URI, l.Range.Start))
		case l.TargetURI != "" && l.TargetSelectionRange != nil:
			out = append(out, place(l.TargetURI, l.TargetSelectionRange.Start))
		}
	}
	return out
}

// place turns a protocol position into a Location, its column counted in bytes of the line.
func place(u protocol.DocumentURI, p protocol.Position) Location {
	path := u.Filename()
	col := int(p.Character) + 1
	if b, err := os.ReadFile(path); err == nil {
		col = byteColumn(lineText(string(b), int(p.Line)+1), p.Character)
	}
	return Location{Path: path, Line: int(p.Line) + 1, Column: col}
}

// lineText is the 1-based line of text, without its line ending ("" past the end).
func lineText(text string, line int) string {
	for i := 1; i < line; i++ {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return ""
		}
		text = text[nl+1:]
	}
	if nl := strings.IndexByte(text, '\n'); nl >= 0 {
		text = text[:nl]
	}
	return strings.TrimSuffix(text, "\r")
}

// utf16Column is the protocol's column (UTF-16 code units, 0-based) of the 1-based byte
// column of line.
func utf16Column(line string, column int) uint32 {
	prefix := line[:min(max(column-1, 0), len(line))]
	return uint32(len(utf16.Encode([]rune(prefix))))
}

// byteColumn is the 1-based byte column of the protocol's column of line.
func byteColumn(line string, character uint32) int {
	units := 0
	for i, r := range line {
		if units >= int(character) {
			return i + 1
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return len(line) + 1
}
