package edit

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/cairnhq/cairn/core/diff"
	"github.com/cairnhq/cairn/core/internal/mdsections"
	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/tools"
)

//go:embed messages.md
var messagesMD string

// messages maps a section heading of messages.md to its template. The file is embedded, so a
// parse failure is a build defect that the key test exposes; it is parsed on first use, not
// at every process start.
var messages = lazy.Value[mdsections.Set]{New: func() mdsections.Set { return mdsections.Templates(messagesMD) }}

// msgData feeds the templates of messages.md.
type msgData struct {
	Path     string
	Lines    int
	Diff     string
	Content  string
	Problems string
	Message  string
	Reason   string
	Tool     string // the tool's name
	Block    int    // 1-based block number of a replace_in_file diff
	Span     string // "line 4" or "lines 4-9" of the original file
}

func render(key string, d msgData) string {
	out, ok := messages.Get().Render(key, d)
	if !ok {
		// A missing or broken section is a defect in messages.md; still say something true.
		return fmt.Sprintf("(%s: %s)", key, d.Path)
	}
	return out
}

// compactThreshold: files up to this many lines come back whole after an edit (docs/tools.md,
// "Editing files").
const compactThreshold = 300

// outcome is what happened to one approved edit, everything resultText needs.
type outcome struct {
	rel      string
	orig     string // the file before the edit ("" for a new file)
	proposed string // what the model's call produced
	final    string // what the host saved
	isNew    bool
	full     bool // Settings.FullEditResults
	// problems are the errors the editor reports after saving that it did not report before.
	problems []tools.Diagnostic
	// beforeUnknown: the problems before the edit are not known, so problems are all of
	// those after it.
	beforeUnknown bool
	// unavailable says why the problems after the save are not known ("" when they are, or
	// there is no editor to ask).
	unavailable string
	// edits are replace_in_file's blocks as the engine placed them, in block order.
	edits []diff.Edit
}

// resultText tells the model what is on disk now (docs/tools.md, "Editing files"): the success
// line; the changes the user or the editor's formatter made to the proposal, as a diff; errors that
// appeared with the edit; and the final content when it differs from the proposal or the file is
// small — otherwise only the changed hunks, which saves tokens on long files.
//
// Texts are shown with LF line endings and without a BOM: the model writes LF, and the file
// keeps its own style on disk whatever the model sees.
func resultText(o outcome) string {
	orig, proposed, final := modelText(o.orig), modelText(o.proposed), modelText(o.final)
	lines := countLines(final)
	var parts []string
	changed := final != proposed
	if changed {
		parts = append(parts, render("saved-with-changes", msgData{Path: o.rel, Diff: Unified(o.rel, proposed, final, 3)}))
	} else {
		parts = append(parts, render("saved", msgData{Path: o.rel}))
	}
	if notes := matchNotes(o.edits); notes != "" {
		parts = append(parts, notes)
	}
	switch {
	case len(o.problems) > 0 && o.beforeUnknown:
		parts = append(parts, render("problems-now", msgData{Path: o.rel, Problems: formatProblems(o.problems)}))
	case len(o.problems) > 0:
		parts = append(parts, render("new-problems", msgData{Path: o.rel, Problems: formatProblems(o.problems)}))
	case o.unavailable != "":
		parts = append(parts, render("diagnostics-unavailable", msgData{Path: o.rel, Reason: o.unavailable}))
	}
	switch {
	case changed || o.full || lines <= compactThreshold:
		parts = append(parts, render("final-content", msgData{Path: o.rel, Content: strings.TrimSuffix(final, "\n")}))
	case o.isNew:
		parts = append(parts, render("new-file-unchanged", msgData{Path: o.rel, Lines: lines}))
	default:
		parts = append(parts, render("changed-hunks", msgData{Path: o.rel, Lines: lines, Diff: Unified(o.rel, orig, final, 3)}))
	}
	return strings.Join(parts, "\n\n")
}

// matchNotes tells the model which blocks were not found verbatim (docs/tools.md, "Editing files"):
// a block placed by whitespace-trimmed lines or by its anchor lines replaced lines that differ from
// its SEARCH text, so the model should look at them in the saved file before building on them.
// Blocks found verbatim, before or after the previous block, need no note.
func matchNotes(edits []diff.Edit) string {
	var notes []string
	for _, e := range edits {
		var key string
		switch e.Level {
		case diff.Trimmed, diff.TrimmedAnywhere:
			key = "match-trimmed"
		case diff.Anchor:
			key = "match-anchor"
		default:
			continue
		}
		notes = append(notes, render(key, msgData{Block: e.Block, Span: span(e.Start, e.End)}))
	}
	return strings.Join(notes, "\n")
}

// span names original lines [start, end) 1-based, the way the model reads line numbers.
func span(start, end int) string {
	if end-start == 1 {
		return fmt.Sprintf("line %d", start+1)
	}
	return fmt.Sprintf("lines %d-%d", start+1, end)
}

// modelText is s as the model reads it: no BOM, LF line endings.
func modelText(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// countLines counts lines the way an editor numbers them: a final newline does not start a
// new line, and an empty file has none.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// diagKey identifies a diagnostic across an edit. Line numbers are left out on purpose: an
// edit above an old error moves it, and a moved error is not a new one.
type diagKey struct{ source, message string }

// newErrors returns the errors for abs in after that before did not have (as a multiset: a
// second copy of an old message is new), sorted by line. Other severities and other files
// are not the edit's business.
func newErrors(abs string, before, after []tools.Diagnostic) []tools.Diagnostic {
	seen := map[diagKey]int{}
	for _, d := range before {
		if d.Path == abs && d.Severity == "error" {
			seen[diagKey{d.Source, d.Message}]++
		}
	}
	var out []tools.Diagnostic
	for _, d := range after {
		if d.Path != abs || d.Severity != "error" {
			continue
		}
		k := diagKey{d.Source, d.Message}
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// formatProblems renders one "- Line N (source): message" line per diagnostic.
func formatProblems(ds []tools.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "- Line %d", d.Line)
		if d.Source != "" {
			fmt.Fprintf(&b, " (%s)", d.Source)
		}
		fmt.Fprintf(&b, ": %s\n", strings.TrimSpace(d.Message))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
