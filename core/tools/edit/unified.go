package edit

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// lineOp is one line of a line diff.
type lineOp struct {
	op   diffmatchpatch.Operation
	text string
}

// lineDiff computes a line-level diff with go-diff: lines are mapped to runes, diffed, and
// mapped back with DiffCharsToLines — the rune of a line is not its index once there are more
// lines than runes below the surrogate range, so the mapping must go through go-diff.
func lineDiff(a, b string) []lineOp {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ca, cb, false), lines)
	var out []lineOp
	for _, d := range diffs {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				out = append(out, lineOp{op: d.Type, text: l})
			}
		}
	}
	return out
}

// Unified renders a unified diff of a → b with n lines of context, or "" when they are equal.
func Unified(name string, a, b string, n int) string {
	if a == b {
		return ""
	}
	ops := lineDiff(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", name, name)
	// Walk ops, grouping changes with n lines of context into hunks.
	type pos struct{ a, b int }
	at := make([]pos, len(ops)+1)
	for i, o := range ops {
		at[i+1] = at[i]
		switch o.op {
		case diffmatchpatch.DiffEqual:
			at[i+1].a++
			at[i+1].b++
		case diffmatchpatch.DiffDelete:
			at[i+1].a++
		case diffmatchpatch.DiffInsert:
			at[i+1].b++
		}
	}
	i := 0
	for i < len(ops) {
		if ops[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		start := max(i-n, 0)
		end := i
		// Extend while the next change is within 2n equal lines.
		for end < len(ops) {
			if ops[end].op != diffmatchpatch.DiffEqual {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].op == diffmatchpatch.DiffEqual {
				j++
			}
			if j < len(ops) && j-end <= 2*n {
				end = j
				continue
			}
			end = min(end+n, len(ops))
			break
		}
		ca, cb := 0, 0
		for _, o := range ops[start:end] {
			if o.op != diffmatchpatch.DiffInsert {
				ca++
			}
			if o.op != diffmatchpatch.DiffDelete {
				cb++
			}
		}
		// As in GNU diff, an empty side names the line after which the other side goes.
		sa, sb := at[start].a+1, at[start].b+1
		if ca == 0 {
			sa--
		}
		if cb == 0 {
			sb--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", sa, ca, sb, cb)
		for _, o := range ops[start:end] {
			prefix := " "
			switch o.op {
			case diffmatchpatch.DiffDelete:
				prefix = "-"
			case diffmatchpatch.DiffInsert:
				prefix = "+"
			}
			line := o.text
			out.WriteString(prefix + strings.TrimSuffix(line, "\n") + "\n")
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}
