package mentions

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/tools"
)

// problems renders the editor's errors and warnings grouped by file; files the ignore file
// blocks are left out.
func (d Deps) problems(ctx context.Context) string {
	if d.Diagnostics == nil {
		return render("no-editor", textData{})
	}
	ds, err := d.Diagnostics.Diagnostics(ctx)
	if err != nil {
		return render("diagnostics-error", textData{Err: err.Error()})
	}
	byFile := map[string][]tools.Diagnostic{}
	var files []string
	for _, dg := range ds {
		if dg.Severity != "error" && dg.Severity != "warning" {
			continue
		}
		if d.Files != nil && d.Files.Ignored(dg.Path) {
			continue
		}
		name := dg.Path
		if d.Files != nil {
			name = d.Files.Rel(dg.Path)
		}
		if _, ok := byFile[name]; !ok {
			files = append(files, name)
		}
		byFile[name] = append(byFile[name], dg)
	}
	if len(files) == 0 {
		return render("no-problems", textData{})
	}
	slices.Sort(files)
	var b strings.Builder
	for i, f := range files {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(f + "\n")
		dgs := byFile[f]
		slices.SortStableFunc(dgs, func(a, b tools.Diagnostic) int { return a.Line - b.Line })
		for _, dg := range dgs {
			src := ""
			if dg.Source != "" {
				src = " (" + dg.Source + ")"
			}
			fmt.Fprintf(&b, "- [%s] Line %d: %s%s\n", dg.Severity, dg.Line, strings.TrimSpace(dg.Message), src)
		}
	}
	return b.String()
}

// terminal renders the latest terminal output.
func (d Deps) terminal(ctx context.Context) string {
	if d.Terminal == nil {
		return render("no-terminal", textData{})
	}
	out, err := d.Terminal.TerminalOutput(ctx)
	if err != nil {
		return render("terminal-error", textData{Err: err.Error()})
	}
	if strings.TrimSpace(out) == "" {
		return render("terminal-empty", textData{})
	}
	return strings.TrimRight(out, "\n")
}
