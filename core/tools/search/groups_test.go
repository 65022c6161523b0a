package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestGroupsAgreesWithLineSplitting checks groups against a plain model of its contract —
// split the file into lines, number them, take ctx lines each side of every match, merge runs
// that touch — on generated files: empty lines, CRLF endings, no final newline, matches at
// the first and last lines and an empty match after the final newline.
func TestGroupsAgreesWithLineSplitting(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 18))
	pieces := []string{"", "a", "func x()", "\r", "b\r", "  ", "deadline"}
	for iter := range 3000 {
		var b strings.Builder
		lines := rng.IntN(12)
		for i := range lines {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if i < lines-1 || rng.IntN(2) == 0 {
				b.WriteByte('\n')
			}
		}
		data := []byte(b.String())
		var starts []int
		for off := 0; off <= len(data); {
			if (off < len(data) || off > 0 && data[off-1] == '\n') && rng.IntN(3) == 0 {
				starts = append(starts, off)
			}
			i := bytes.IndexByte(data[off:], '\n')
			if i < 0 {
				break
			}
			off += i + 1
		}
		if len(starts) == 0 {
			continue
		}
		ctx := rng.IntN(3)
		got, want := groups(data, starts, ctx), modelGroups(data, starts, ctx)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: %q starts %v ctx %d\n got %s\nwant %s", iter, data, starts, ctx, show(got), show(want))
		}
	}
}

// modelGroups is groups written the obvious way: every line split out and numbered first.
// Runs are formed on line numbers, then lines past the end dropped: an empty match after the
// final newline, far from other matches, leaves an empty run (shown as a bare rule).
func modelGroups(data []byte, starts []int, ctx int) [][]Line {
	var texts []string
	lineAt := map[int]int{} // start offset → 1-based number
	for off, n := 0, 1; ; n++ {
		lineAt[off] = n
		if off == len(data) {
			break // an offset after a final newline still has a number, but no text
		}
		e := bytes.IndexByte(data[off:], '\n')
		if e < 0 {
			texts = append(texts, strings.TrimRight(string(data[off:]), "\r"))
			break
		}
		texts = append(texts, strings.TrimRight(string(data[off:off+e]), "\r"))
		off += e + 1
	}
	match := map[int]bool{}
	var keep []int
	for _, st := range starts {
		n := lineAt[st]
		match[n] = true
		for k := max(1, n-ctx); k <= n+ctx; k++ {
			if len(keep) == 0 || k > keep[len(keep)-1] {
				keep = append(keep, k)
			}
		}
	}
	var out [][]Line
	for i, k := range keep {
		if i == 0 || k > keep[i-1]+1 {
			out = append(out, nil)
		}
		if k <= len(texts) {
			out[len(out)-1] = append(out[len(out)-1], Line{Num: k, Text: texts[k-1], IsMatch: match[k]})
		}
	}
	return out
}

func show(gs [][]Line) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString("[")
		for _, l := range g {
			fmt.Fprintf(&b, " %d%s%q", l.Num, map[bool]string{true: "*", false: ":"}[l.IsMatch], l.Text)
		}
		b.WriteString(" ]")
	}
	return b.String()
}
