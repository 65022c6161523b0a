package eval

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Stats sums up the results of one language (or of all).
type Stats struct {
	Language string
	Count    int
	// PassedBy[k] is how many exercises passed on try k+1 or earlier.
	PassedBy                       []int
	PromptTokens, CompletionTokens int64
	CostUSD, Seconds               float64
	// PriceUnknown: some exercise's model prices are unknown, so CostUSD is no figure.
	PriceUnknown bool
	Errors       int
	// Health (Result's figures, summed); WellFormed counts the exercises whose replies were
	// all well formed.
	WellFormed, Replies, Malformed, Timeouts, ContextExhausted, TestTimeouts int
}

// Rate is the pass rate after try (1-based), in percent.
func (s Stats) Rate(try int) float64 {
	if s.Count == 0 || try < 1 {
		return 0
	}
	if try > len(s.PassedBy) {
		try = len(s.PassedBy)
	}
	return 100 * float64(s.PassedBy[try-1]) / float64(s.Count)
}

// Summarize groups results by language (sorted) and adds a last "all" row when there are
// several languages. tries is the number of try columns.
func Summarize(results []Result, tries int) []Stats {
	by := map[string]*Stats{}
	all := &Stats{Language: "all", PassedBy: make([]int, tries)}
	for _, r := range results {
		s := by[r.Language]
		if s == nil {
			s = &Stats{Language: r.Language, PassedBy: make([]int, tries)}
			by[r.Language] = s
		}
		for _, x := range []*Stats{s, all} {
			x.Count++
			if r.PassedOnTry != nil {
				for k := *r.PassedOnTry - 1; k < tries; k++ {
					if k >= 0 {
						x.PassedBy[k]++
					}
				}
			}
			x.PromptTokens += r.PromptTokens
			x.CompletionTokens += r.CompletionTokens
			x.CostUSD += r.CostUSD
			x.PriceUnknown = x.PriceUnknown || r.PriceUnknown
			if r.MalformedReplies == 0 {
				x.WellFormed++
			}
			x.Replies += r.Replies
			x.Malformed += r.MalformedReplies
			x.Timeouts += r.Timeouts
			x.ContextExhausted += r.ContextExhausted
			x.TestTimeouts += r.TestTimeouts
			x.Seconds += r.Seconds
			if r.Error != "" {
				x.Errors++
			}
		}
	}
	out := make([]Stats, 0, len(by)+1)
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Language < out[j].Language })
	if len(out) > 1 {
		out = append(out, *all)
	}
	return out
}

// Table renders the stats: the pass rate after each try, tokens, cost and time per language;
// with compare >= 0 (a published pass rate in percent) also how far the last try's rate is
// from it, in points.
func Table(stats []Stats, tries int, compare float64) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"language", "exercises"}
	for k := 1; k <= tries; k++ {
		head = append(head, fmt.Sprintf("try %d", k))
	}
	head = append(head, "prompt tok", "completion tok", "cost", "time", "errors")
	if compare >= 0 {
		head = append(head, fmt.Sprintf("vs %.1f%%", compare))
	}
	// Writes to a tabwriter over a strings.Builder do not fail; Flush reports any error.
	_, _ = fmt.Fprintln(w, strings.Join(head, "\t")+"\t")
	for _, s := range stats {
		row := []string{s.Language, fmt.Sprint(s.Count)}
		for k := 1; k <= tries; k++ {
			row = append(row, fmt.Sprintf("%.1f%%", s.Rate(k)))
		}
		row = append(row, fmt.Sprint(s.PromptTokens), fmt.Sprint(s.CompletionTokens), costText(s.CostUSD, s.PriceUnknown),
			(time.Duration(s.Seconds * float64(time.Second))).Round(time.Second).String(), fmt.Sprint(s.Errors))
		if compare >= 0 {
			row = append(row, fmt.Sprintf("%+.1f", s.Rate(tries)-compare))
		}
		_, _ = fmt.Fprintln(w, strings.Join(row, "\t")+"\t")
	}
	// The health figures, beside the rates as Aider prints them, so a low score can be
	// explained.
	_, _ = fmt.Fprintln(w, "\t")
	_, _ = fmt.Fprintln(w, strings.Join([]string{"language", "well-formed", "replies", "malformed", "timeouts",
		"context full", "test timeouts"}, "\t")+"\t")
	for _, s := range stats {
		wf := 0.0
		if s.Count > 0 {
			wf = 100 * float64(s.WellFormed) / float64(s.Count)
		}
		_, _ = fmt.Fprintln(w, strings.Join([]string{s.Language, fmt.Sprintf("%.1f%%", wf), fmt.Sprint(s.Replies),
			fmt.Sprint(s.Malformed), fmt.Sprint(s.Timeouts), fmt.Sprint(s.ContextExhausted), fmt.Sprint(s.TestTimeouts)}, "\t")+"\t")
	}
	if err := w.Flush(); err != nil {
		return err.Error() // a strings.Builder does not fail
	}
	return b.String()
}
