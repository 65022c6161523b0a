package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// P7 (docs/performance.md): a scripted 30-request task that re-reads and edits the same three
// ~400-line files sends at least 30% fewer prompt tokens with duplicate file contents removed and
// compact edit results (the defaults) than with both off. Tokens are counted here with the offline
// tokenizer over what the fake model received, system prompt included.
//
// The fake model runs with a prefix cache (llmtest.Script.PrefixCache): with the defaults, at
// least p7MinCacheShare of the prompt tokens after request p7CacheFrom are served from it,
// which takes a prefix that deduplication does not rewrite from one request to the next.

const (
	p7Requests  = 30
	p7FileLines = 400
	p7MinSaving = 0.30
	// p7CacheFrom is how many requests warm the cache before the cache share is counted.
	p7CacheFrom     = 3
	p7MinCacheShare = 0.80
)

var p7Files = []string{"alpha.go", "beta.go", "gamma.go"}

// p7Source is a ~400-line Go file: small functions, each with a line the edits can target.
func p7Source(pkg string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s is generated for the P7 token benchmark.\npackage %s\n\n", pkg, pkg)
	for n := 0; strings.Count(b.String(), "\n") < p7FileLines-8; n++ {
		fmt.Fprintf(&b, "// Step%d scales x and keeps the result in range.\nfunc Step%d(x int) int {\n\ty := x * %d\n"+
			"\tif y > 1000 {\n\t\treturn y - %d\n\t}\n\treturn y + %d\n}\n\n", n, n, n+2, n, n)
	}
	return b.String()
}

// p7Script alternates read_file and replace_in_file over the three files and ends with
// attempt_completion. It returns the script and the files' expected final contents.
func p7Script() (llmtest.Script, map[string]string) {
	files := map[string]string{}
	for _, f := range p7Files {
		files[f] = p7Source(strings.TrimSuffix(f, ".go"))
	}
	var turns []llmtest.Turn
	for i := 0; i < p7Requests-1; i++ {
		f := p7Files[(i/2)%len(p7Files)]
		if i%2 == 0 {
			turns = append(turns, llmtest.Turn{Text: "Let me look at " + f + ".\n<read_file>\n<path>" + f + "</path>\n</read_file>"})
			continue
		}
		n := i % 40
		search := fmt.Sprintf("\ty := x * %d\n", n+2)
		if !strings.Contains(files[f], search) {
			search = fmt.Sprintf("\ty := x * %d + %d\n", n+2, i-6) // edited six requests ago
		}
		replace := fmt.Sprintf("\ty := x * %d + %d\n", n+2, i)
		files[f] = strings.Replace(files[f], search, replace, 1)
		turns = append(turns, llmtest.Turn{Text: "Adjusting Step" + fmt.Sprint(n) + ".\n<replace_in_file>\n<path>" + f +
			"</path>\n<diff>\n------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n</diff>\n</replace_in_file>"})
	}
	turns = append(turns, llmtest.Turn{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"})
	return llmtest.Script{Turns: turns, PrefixCache: true}, files
}

// p7Run plays the task and returns the prompt tokens of each request, and the share of the
// fake's estimated prompt tokens after request p7CacheFrom that its prefix cache served.
func p7Run(t testing.TB, dedup, compact bool) ([]int, float64) {
	t.Helper()
	script, want := p7Script()
	e := servertest.Start(t, script, servertest.Options{Settings: func(s *config.Settings) {
		s.AutoApprove.EditFiles = true
		s.AutoApprove.MaxRequests = 0
		s.DedupFileContents = dedup
		s.FullEditResults = !compact
	}})
	for _, f := range p7Files {
		if err := os.WriteFile(filepath.Join(e.Workspace, f), []byte(p7Source(strings.TrimSuffix(f, ".go"))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := e.NewTask("Tune the Step functions in alpha.go, beta.go and gamma.go.", "", cairnv1.Mode_MODE_ACT)
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	for f, content := range want {
		got, err := os.ReadFile(filepath.Join(e.Workspace, f))
		if err != nil || string(got) != content {
			t.Fatalf("%s does not hold the scripted edits (an edit failed): %v", f, err)
		}
	}
	reqs := e.LLM.Requests()
	if len(reqs) != p7Requests {
		t.Fatalf("%d requests, want %d", len(reqs), p7Requests)
	}
	// Savings never drop the latest copy: the request after each read carries the whole
	// file, or says it is the same as the copy before it (an edit result's final content).
	for i := 0; i < p7Requests-1; i += 2 {
		f := p7Files[(i/2)%len(p7Files)]
		last := reqs[i+1].LastUser()
		if !strings.Contains(last, "[read_file for '"+f+"'] Result:\n// Package") &&
			(!dedup || !strings.Contains(last, "The content of "+f+" is left out here")) {
			t.Fatalf("request %d lacks the read of %s it follows:\n%.300s", i+2, f, last)
		}
	}
	var prompt, cached int64
	for _, r := range reqs[p7CacheFrom:] {
		prompt += r.PromptTokens
		cached += r.CachedTokens
	}
	counted := map[string]int{} // the same message text recurs in every later request
	out := make([]int, len(reqs))
	for i, r := range reqs {
		for _, m := range r.Messages {
			n, ok := counted[m.Text]
			if !ok {
				n = llm.CountTokens(m.Text)
				counted[m.Text] = n
			}
			out[i] += n
		}
	}
	return out, float64(cached) / float64(max(prompt, 1))
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// p7Result is the prompt tokens per request of each configuration.
type p7Result struct {
	on, off, dedupOnly, compactOnly []int
	// cacheOn and cacheOff are the cache shares with both savings on and both off.
	cacheOn, cacheOff float64
}

func saving(xs, base []int) float64 { return 1 - float64(sum(xs))/float64(sum(base)) }

// p7 runs the task with both savings, with neither, and with each alone, and checks the
// target (both on: ≥ 30%) and that each saving contributes: deduplication alone saves ≥ 30%
// too, so the check fails if deduplication breaks even while compact edit results still work.
func p7(t testing.TB) p7Result {
	var r p7Result
	r.on, r.cacheOn = p7Run(t, true, true)
	r.off, r.cacheOff = p7Run(t, false, false)
	r.dedupOnly, _ = p7Run(t, true, false)
	r.compactOnly, _ = p7Run(t, false, true)
	if r.cacheOn < p7MinCacheShare {
		t.Errorf("P7 cache: %.1f%% of the prompt tokens after request %d served from the prefix cache, want ≥ %.0f%%",
			100*r.cacheOn, p7CacheFrom, 100*p7MinCacheShare)
	}
	for _, c := range []struct {
		name string
		got  float64
		min  float64
	}{
		{"dedup and compact edit results", saving(r.on, r.off), p7MinSaving},
		{"dedup alone", saving(r.dedupOnly, r.off), p7MinSaving},
		{"compact edit results alone", saving(r.compactOnly, r.off), 0.10},
	} {
		if c.got < c.min {
			t.Errorf("P7 %s: %.1f%% fewer prompt tokens than with both off, want ≥ %.0f%%", c.name, 100*c.got, 100*c.min)
		}
	}
	return r
}

func TestP7TokenSaving(t *testing.T) {
	p7(t)
}

// BenchmarkP7 is the P7 figure of `make bench`: the prompt tokens of a task that re-reads and
// edits 3 files (p7Requests requests, system prompt included), with both savings on (the
// defaults) against the anchor, the same task with deduplication and compact edit results
// off, measured in the same run. One iteration plays the task in the four configurations
// and checks the targets as TestP7TokenSaving does. Metrics: saved-% (both on; target ≥ 30%),
// dedup-saved-% and compact-saved-% (each alone), cached-% (the share of the prompt tokens
// after request p7CacheFrom served from the fake's prefix cache with the defaults; target
// ≥ p7MinCacheShare) and off-cached-% (both off), and the total tokens of both runs. The
// per-request table is printed before them.
func BenchmarkP7(b *testing.B) {
	var r p7Result
	for b.Loop() {
		r = p7(b)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "P7 prompt tokens per request (%d requests, 3 files × %d lines re-read and edited; system prompt included)\n",
		p7Requests, p7FileLines)
	fmt.Fprintf(&t, "%5s %12s %12s %12s %12s %7s\n", "req", "both on", "dedup only", "compact only", "both off", "saved")
	for i := range r.on {
		fmt.Fprintf(&t, "%5d %12d %12d %12d %12d %6.1f%%\n", i+1, r.on[i], r.dedupOnly[i], r.compactOnly[i], r.off[i],
			100*(1-float64(r.on[i])/float64(r.off[i])))
	}
	fmt.Print(t.String()) // b.Log keeps only a benchmark's first ten lines of log

	b.ReportMetric(100*saving(r.on, r.off), "saved-%")
	b.ReportMetric(100*saving(r.dedupOnly, r.off), "dedup-saved-%")
	b.ReportMetric(100*saving(r.compactOnly, r.off), "compact-saved-%")
	b.ReportMetric(100*r.cacheOn, "cached-%")
	b.ReportMetric(100*r.cacheOff, "off-cached-%")
	b.ReportMetric(float64(sum(r.on)), "tokens")
	b.ReportMetric(float64(sum(r.off)), "off-tokens")
}

// TestContextOverflowShrinksOnce: when the provider says the prompt is too long, the task
// retries once, silently, with three quarters of the conversation after the first exchange
// left out and a note in the first message; the retry succeeds and nothing is shown.
func TestContextOverflowShrinksOnce(t *testing.T) {
	var turns []llmtest.Turn
	for i := 0; i < 12; i++ {
		turns = append(turns, llmtest.Turn{Text: fmt.Sprintf("<read_file>\n<path>f%d.txt</path>\n</read_file>", i)})
	}
	turns = append(turns,
		llmtest.Turn{Fault: &llmtest.Fault{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens. ` +
			`Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}`}},
		llmtest.Turn{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"})
	e := servertest.Start(t, llmtest.Script{Turns: turns}, servertest.Options{})
	for i := 0; i < 12; i++ {
		if err := os.WriteFile(filepath.Join(e.Workspace, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat("line\n", 20)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := e.NewTask("read them all", "", cairnv1.Mode_MODE_ACT)
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	reqs := e.LLM.Requests()
	if len(reqs) != 14 {
		t.Fatalf("%d requests, want 14", len(reqs))
	}
	failed, retry := reqs[12], reqs[13]
	count := func(r llmtest.Request) (n int) {
		for _, m := range r.Messages {
			if m.Role != "system" {
				n++
			}
		}
		return n
	}
	// 25 messages: the head (3) and 22 more; a quarter truncation leaves out 3/4 of 22 → 16.
	if count(failed) != 25 || count(retry) != 25-16 {
		t.Fatalf("messages: %d before the retry, %d after; want 25 and 9", count(failed), count(retry))
	}
	first := retry.Messages[0]
	if first.Role == "system" {
		first = retry.Messages[1]
	}
	if !strings.Contains(first.Text, "<task>") || !strings.Contains(first.Text, "removed to fit the context window") {
		t.Fatalf("first message of the retry lacks the task or the note:\n%s", first.Text)
	}
	if retry.LastUser() != failed.LastUser() {
		t.Fatal("the retry changed the last user message")
	}
	for _, m := range w.Messages() {
		if m.GetSay() == cairnv1.SayKind_SAY_KIND_ERROR_RETRY || m.GetAsk() == cairnv1.AskKind_ASK_KIND_API_REQ_FAILED {
			t.Fatalf("the silent retry was shown: %v", m)
		}
	}
}
