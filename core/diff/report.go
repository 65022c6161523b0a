package diff

import (
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnhq/cairn/core/internal/mdsections"
	"github.com/cairnhq/cairn/core/lazy"
)

//go:embed messages.md
var messagesMD string

// messages maps a section heading of messages.md to its template. The file is embedded, so a
// parse failure is a build defect that every test exposes at once. They are parsed on the first
// report, not at process start: the daemon loads nothing before its first client that a
// client may never need (docs/performance.md, "P5 — the daemon at rest").
var messages = lazy.Value[mdsections.Set]{New: func() mdsections.Set { return mdsections.Templates(messagesMD) }}

// msgData feeds the templates.
type msgData struct {
	Block    int
	DiffLine int
	LineText string
	Search   string
	Region   string
	Lines    string
	Other    int
	Span     string
}

func render(key string, d msgData) string {
	out, ok := messages.Get().Render(key, d)
	if !ok {
		// A missing or broken section is a defect in messages.md; still say something useful.
		return fmt.Sprintf("edit failed (%s) at block %d", key, d.Block)
	}
	// Optional fields leave blank lines behind; collapse them so the text stays compact.
	return strings.ReplaceAll(out, "\n\n", "\n")
}

func formatError(kind error, block, diffLine int, line, key string) *ApplyError {
	return &ApplyError{
		Block:    block,
		DiffLine: diffLine,
		Kind:     kind,
		Message:  render(key, msgData{Block: block, DiffLine: diffLine, LineText: strings.TrimSpace(line)}),
	}
}

// searchExcerpt quotes the first lines of a SEARCH section so the model can tell which block
// failed even when blocks look alike.
func searchExcerpt(search []string) string {
	const maxLines = 3
	var b strings.Builder
	b.WriteString("Its SEARCH text begins:\n")
	for i, l := range search {
		if i == maxLines {
			fmt.Fprintf(&b, "  … and %d more\n", len(search)-maxLines)
			break
		}
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func noMatchError(f *file, blockNo int, search []string) *ApplyError {
	d := msgData{Block: blockNo, Search: searchExcerpt(search)}
	f.index() // the reports read lines by number
	if start, end, ok := mostSimilar(f, search); ok {
		d.Region = numbered(f, start, end)
	}
	return &ApplyError{Block: blockNo, Kind: ErrNoMatch, Message: render("no-match", d)}
}

func ambiguousError(blockNo int, search []string, starts []int, more bool) *ApplyError {
	parts := make([]string, len(starts))
	for i, s := range starts {
		parts[i] = "line " + strconv.Itoa(s+1)
	}
	lines := strings.Join(parts, ", ")
	if more {
		lines += ", …"
	}
	d := msgData{Block: blockNo, Search: searchExcerpt(search), Lines: "starting at " + lines}
	return &ApplyError{Block: blockNo, Kind: ErrAmbiguous, Message: render("ambiguous", d)}
}

func overlapError(blockNo int, search []string, other Edit) *ApplyError {
	span := "line " + strconv.Itoa(other.Start+1)
	if other.End > other.Start+1 {
		span = "lines " + strconv.Itoa(other.Start+1) + "-" + strconv.Itoa(other.End)
	}
	d := msgData{Block: blockNo, Search: searchExcerpt(search), Other: other.Block, Span: span}
	return &ApplyError{Block: blockNo, Kind: ErrOverlap, Message: render("overlap", d)}
}

// numbered shows file lines [start, end) with 1-based numbers, the way the model sees files
// elsewhere, so it can copy lines straight back into a SEARCH section.
func numbered(f *file, start, end int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The closest part of the file (lines %d-%d):\n", start+1, end)
	w := len(strconv.Itoa(end))
	for i := start; i < end; i++ {
		fmt.Fprintf(&b, "%*d | %s\n", w, i+1, f.text(i))
	}
	return b.String()
}

// mostSimilar picks the region of the file that best resembles search: every file line that
// equals a SEARCH line once all whitespace is ignored votes for the start position it implies,
// and the start with most votes wins. When no line agrees that way, the first line containing
// a SEARCH line (a SEARCH line that is only part of a file line) is shown instead.
func mostSimilar(f *file, search []string) (start, end int, ok bool) {
	const context, maxShown = 2, 40
	n := f.n()
	if n == 0 {
		return 0, 0, false
	}
	want := map[string][]int{}
	for j, s := range search {
		if k := squeeze(nil, s); len(k) > 0 {
			want[string(k)] = append(want[string(k)], j)
		}
	}
	votes := map[int]int{}
	best, bestVotes := 0, 0
	var buf []byte
	for i := 0; i < n; i++ {
		buf = squeeze(buf[:0], string(f.text(i)))
		for _, j := range want[string(buf)] {
			s := i - j
			votes[s]++
			if v := votes[s]; v > bestVotes || (v == bestVotes && s < best) {
				best, bestVotes = s, v
			}
		}
	}
	if bestVotes == 0 {
		var found bool
		if best, found = closestLine(f, search); !found {
			return 0, 0, false
		}
	}
	start = max(best-context, 0)
	end = min(best+len(search)+context, n, start+maxShown)
	return start, end, start < end
}

// closestLine is the fallback when no whole line agrees: every start position is scored by
// how much its first few lines resemble the first few SEARCH lines (shared prefix and suffix,
// or containment, whitespace ignored). That catches a one-word typo as well as a SEARCH line
// that is only part of a file line.
func closestLine(f *file, search []string) (start int, ok bool) {
	const probes, minScore = 3, 0.5
	k := min(len(search), probes)
	want := make([][]byte, k)
	for j := range want {
		want[j] = squeeze(nil, search[j])
	}
	sq := make([][]byte, f.n())
	for i := range sq {
		sq[i] = squeeze(nil, string(f.text(i)))
	}
	best := 0.0
	for i := range sq {
		score := 0.0
		for j := 0; j < k && i+j < len(sq); j++ {
			score += similarity(sq[i+j], want[j])
		}
		if score > best {
			best, start = score, i
		}
	}
	return start, best/float64(k) >= minScore
}

// similarity is in [0, 1]: the share of the longer line covered by a common prefix and
// suffix, or by the shorter line when one contains the other.
func similarity(a, b []byte) float64 {
	long := max(len(a), len(b))
	if long == 0 {
		return 1
	}
	if len(a) > 0 && len(b) > 0 && (bytes.Contains(a, b) || bytes.Contains(b, a)) {
		return float64(min(len(a), len(b))) / float64(long)
	}
	p := commonPrefix(a, b)
	return float64(p+commonSuffix(a[p:], b[p:])) / float64(long)
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// squeeze appends s without any whitespace.
func squeeze(dst []byte, s string) []byte {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}
