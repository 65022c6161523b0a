// Package nav holds the read-only code navigation tools, go_to_definition and
// find_references (docs/tools.md, "Code navigation"): they ask the workspace's language
// servers (core/lsp, through a Navigator the task is given), and go_to_definition falls back to
// the definitions tree-sitter finds (a Finder: core/tools/codedefs' Find) when no server
// answers.
package nav

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// The tools' names, in the prompt and in tool calls.
const (
	DefinitionName = toolnames.GoToDefinition
	ReferencesName = toolnames.FindReferences
)

//go:embed description.md
var descriptionMD string

var texts = tools.Texts{MD: &descriptionMD}

// Location is one place an answer points at: an absolute path and 1-based line.
type Location struct {
	Path string
	Line int
}

// Navigator answers where a symbol is defined and used: the task's language servers, or its
// editor's own providers. found is false when nothing serves the file (no server for its
// language): go_to_definition then falls back. An error means a server could not answer.
type Navigator interface {
	Definition(ctx context.Context, abs string, line, column int) (locs []Location, found bool, err error)
	References(ctx context.Context, abs string, line, column int) (locs []Location, found bool, err error)
}

// Finder finds the definitions named symbol without a language server, by parsing the code
// of the workspace (core/tools/codedefs' Find): the places of abs's own folder when there
// are any, else those of the root.
type Finder func(ctx context.Context, env *tools.Env, abs, symbol string) ([]Location, error)

// maxShown caps the places an answer lists.
const maxShown = 100

// Tool is go_to_definition or find_references.
type Tool struct {
	refs bool
	nav  Navigator
	find Finder
}

// NewDefinition returns go_to_definition over nav (nil: find's definitions only), falling
// back to find (nil: no fallback).
func NewDefinition(nav Navigator, find Finder) *Tool { return &Tool{nav: nav, find: find} }

// NewReferences returns find_references over nav (nil: it says no server runs).
func NewReferences(nav Navigator) *Tool { return &Tool{refs: true, nav: nav} }

func (t *Tool) name() string {
	if t.refs {
		return ReferencesName
	}
	return DefinitionName
}

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name: t.name(), Description: texts.Format(t.name()), Category: tools.CategoryRead, PlanSafe: true, ArgParam: "symbol",
		Params: []tools.Param{
			{Name: "path", Required: true, Description: texts.Format("param.path"), Usage: "File path here"},
			{Name: "symbol", Required: true, Description: texts.Format("param.symbol"), Usage: "Symbol name here"},
			{Name: "line", Description: texts.Format("param.line"), Usage: "Line number (optional)"},
		},
	}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path, _ := call.Param("path")
	symbol, _ := call.Param("symbol")
	symbol = strings.TrimSpace(symbol)
	if strings.TrimSpace(path) == "" {
		return tools.MissingParam(t.name(), "path"), nil
	}
	if symbol == "" {
		return tools.MissingParam(t.name(), "symbol"), nil
	}
	abs, inside, err := env.Files.Resolve(path)
	if err != nil {
		return tools.Errorf("%s", err.Error()), nil
	}
	rel := env.Files.Rel(abs)
	if env.Files.Ignored(abs) {
		env.UI.Say(ctx, msg.SayIgnoreError, rel, nil, false)
		return tools.Errorf("%s", texts.Format("ignored", rel)), nil
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return tools.Errorf("%s", err.Error()), nil
	}
	want, _ := strconv.Atoi(strings.TrimSpace(call.Params["line"]))
	line, column := find(string(src), symbol, want)
	if line == 0 {
		at := ""
		if want > 0 {
			at = fmt.Sprintf(" on line %d", want)
		}
		return tools.Errorf("%s", texts.Format("not-in-file", symbol, rel, at)), nil
	}
	what := "definition"
	if t.refs {
		what = "references"
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryRead, Path: abs, Inside: inside,
		Payload: &msg.Tool{Op: msg.OpNavigate, Path: rel, Content: what + " of " + symbol, Outside: !inside}})
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: approve: %w", t.name(), err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: texts.Format("denied"), UserFeedback: ans.Text}, nil
	}
	text, err := t.answer(ctx, env, abs, rel, symbol, line, column)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: text, Read: []string{abs}, UserFeedback: ans.Text}, nil
}

// answer asks the navigator, and for a definition falls back to tree-sitter's when no server
// answers.
func (t *Tool) answer(ctx context.Context, env *tools.Env, abs, rel, symbol string, line, column int) (string, error) {
	var locs []Location
	found, why := false, "none is installed for this file's language"
	if t.nav != nil {
		var err error
		if t.refs {
			locs, found, err = t.nav.References(ctx, abs, line, column)
		} else {
			locs, found, err = t.nav.Definition(ctx, abs, line, column)
		}
		if err != nil {
			found, why = false, err.Error()
		}
	}
	title := "Definition"
	if t.refs {
		title = "References"
	}
	switch {
	case found:
		return listing(env, title, symbol, locs), nil
	case t.refs:
		return texts.Format("no-server", rel), nil
	}
	var defs []Location
	if t.find != nil {
		var err error
		if defs, err = t.find(ctx, env, abs, symbol); err != nil {
			return "", err
		}
	}
	if len(defs) == 0 {
		return texts.Format("none", "definition", symbol), nil
	}
	return texts.Format("fallback", why, symbol, lines(env, defs)), nil
}

// listing formats the places found.
func listing(env *tools.Env, title, symbol string, locs []Location) string {
	if len(locs) == 0 {
		return texts.Format("none", strings.ToLower(title), symbol)
	}
	return texts.Format("found", title, symbol, len(locs), lines(env, locs))
}

// lines is one `path:line: text` line per place, at most maxShown.
func lines(env *tools.Env, locs []Location) string {
	var b strings.Builder
	for i, l := range locs {
		if i == maxShown {
			b.WriteString(texts.Format("truncated", len(locs)-maxShown) + "\n")
			break
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", env.Files.Rel(l.Path), l.Line, strings.TrimSpace(lineOf(l.Path, l.Line)))
	}
	return strings.TrimRight(b.String(), "\n")
}

// find returns the 1-based line and byte column of symbol as a whole word in src: on line
// want when it is given, else its first appearance (0, 0: not found).
func find(src, symbol string, want int) (int, int) {
	for i, l := range strings.Split(src, "\n") {
		if want > 0 && i+1 != want {
			continue
		}
		for off := 0; ; {
			j := strings.Index(l[off:], symbol)
			if j < 0 {
				break
			}
			at := off + j
			end := at + len(symbol)
			if (at == 0 || !word(l[at-1])) && (end == len(l) || !word(l[end])) {
				return i + 1, at + 1
			}
			off = end
		}
	}
	return 0, 0
}

func word(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// lineOf is the 1-based line of the file at path ("" when it cannot be read).
func lineOf(path string, line int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	ls := strings.Split(string(b), "\n")
	if line < 1 || line > len(ls) {
		return ""
	}
	return ls[line-1]
}
