package mentions

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/webfetch"
)

// Files is the workspace as mentions see it. *workspace.Workspace implements it.
type Files interface {
	// Root is the primary root: `@/x` names Root()/x, and git runs there.
	Root() string
	// Resolve maps a root-relative path to an absolute one; inside is false for anything
	// that leaves the workspace (a `../` escape, a symlink pointing out).
	Resolve(path string) (abs string, inside bool, err error)
	// Ignored reports whether the user's ignore file blocks abs.
	Ignored(abs string) bool
	// Rel is the path shown to the model for abs.
	Rel(abs string) string
}

// Diagnostics reports the editor's current problems in every file.
type Diagnostics interface {
	Diagnostics(ctx context.Context) ([]tools.Diagnostic, error)
}

// DiagnosticsFunc adapts a function to Diagnostics.
type DiagnosticsFunc func(ctx context.Context) ([]tools.Diagnostic, error)

// Diagnostics calls f.
func (f DiagnosticsFunc) Diagnostics(ctx context.Context) ([]tools.Diagnostic, error) { return f(ctx) }

// Terminal returns the latest output of the user's terminal, already cleaned of escape
// sequences.
type Terminal interface {
	TerminalOutput(ctx context.Context) (string, error)
}

// TerminalFunc adapts a function to Terminal.
type TerminalFunc func(ctx context.Context) (string, error)

// TerminalOutput calls f.
func (f TerminalFunc) TerminalOutput(ctx context.Context) (string, error) { return f(ctx) }

// Deps is where expansion gets its content. Every field is optional: a missing source turns
// into a note inside the block that needed it.
type Deps struct {
	Files       Files
	Diagnostics Diagnostics
	Terminal    Terminal
	// HTTPClient fetches URL mentions (nil: http.DefaultClient); URLTimeout bounds one fetch
	// (0: DefaultURLTimeout).
	HTTPClient *http.Client
	URLTimeout time.Duration
	// Render shows a page its scripts build (HTML with no text) in a browser; nil: such a page
	// is shown as the fetch returned it.
	Render webfetch.Renderer
}

// DefaultURLTimeout bounds a URL fetch: long enough for a slow documentation site, short
// enough that a dead host does not hold the turn.
const DefaultURLTimeout = 15 * time.Second

// Expand replaces every mention of text with a short reference and appends one block of
// content per distinct mention, in order of first appearance. Problems gathering content are
// reported inside the blocks; the error is non-nil only when ctx ended, and the text is still
// the best expansion available.
func Expand(ctx context.Context, d Deps, text string) (string, []Mention, error) {
	ms := Parse(text)
	if len(ms) == 0 {
		return text, ms, nil
	}
	type result struct {
		block, ref string
	}
	index := map[string]int{}
	var uniq []Mention
	for _, m := range ms {
		k := key(m)
		if _, ok := index[k]; !ok {
			index[k] = len(uniq)
			uniq = append(uniq, m)
		}
	}
	results := make([]result, len(uniq))
	var wg sync.WaitGroup
	for i, m := range uniq {
		wg.Go(func() {
			results[i].block, results[i].ref = d.block(ctx, m)
		})
	}
	wg.Wait()

	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m.Start])
		b.WriteString(results[index[key(m)]].ref)
		last = m.End
	}
	b.WriteString(text[last:])
	// The blocks start after one blank line, however the user's text ended.
	body := strings.TrimRightFunc(b.String(), unicode.IsSpace)
	b.Reset()
	b.WriteString(body)
	for _, r := range results {
		b.WriteString("\n\n")
		b.WriteString(r.block)
	}
	if err := ctx.Err(); err != nil {
		return b.String(), ms, fmt.Errorf("mentions: expand: %w", err)
	}
	return b.String(), ms, nil
}

// key identifies what a mention names, so `@/a.go` and `@"/a.go"` share one block.
func key(m Mention) string { return string(m.Kind) + "\x00" + m.Value }

// block gathers the content block of m and returns it with the reference that replaces m.
func (d Deps) block(ctx context.Context, m Mention) (block, ref string) {
	switch m.Kind {
	case KindFile, KindFolder:
		return d.pathBlock(ctx, m.Value)
	case KindProblems:
		return tag("workspace_diagnostics", "", "", d.problems(ctx)), render("ref-problems", textData{})
	case KindTerminal:
		return tag("terminal_output", "", "", d.terminal(ctx)), render("ref-terminal", textData{})
	case KindGitChanges:
		return tag("git_working_state", "", "", d.gitChanges(ctx)), render("ref-git-changes", textData{})
	case KindCommit:
		return tag("git_commit", "hash", m.Value, d.gitCommit(ctx, m.Value)),
			render("ref-commit", textData{Hash: m.Value})
	case KindURL:
		return tag("url_content", "url", m.Value, d.fetch(ctx, m.Value)), render("ref-url", textData{URL: m.Value})
	}
	// Parse produces only the kinds above.
	return "", m.Token
}

// tag wraps body in an XML-like element with at most one attribute.
func tag(name, attr, val, body string) string {
	open := "<" + name
	if attr != "" {
		open += " " + attr + `="` + strings.ReplaceAll(val, `"`, "&quot;") + `"`
	}
	return open + ">\n" + strings.TrimRight(body, "\n") + "\n</" + name + ">"
}
