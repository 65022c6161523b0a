package llm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestMain blocks the network for the whole package before anything loads the tokenizer, so
// a tokenizer that tried to download its BPE file would fail the token tests instead of
// quietly passing on a connected machine.
func TestMain(m *testing.M) {
	http.DefaultTransport = blockedTransport{}
	dir, err := os.MkdirTemp("", "tiktoken-cache")
	if err != nil {
		panic(err)
	}
	// An empty cache: nothing to fall back on.
	if err := os.Setenv("TIKTOKEN_CACHE_DIR", dir); err != nil {
		panic(err)
	}
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "removing the tokenizer cache: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

type blockedTransport struct{}

func (blockedTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("network blocked in tests")
}

// reference is tiktoken-go's cl100k_base encoder (regexp pre-tokeniser, unbounded BPE): the
// counts CountTokens must reproduce on ordinary text.
var reference = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	return tiktoken.GetEncoding("cl100k_base")
})

func referenceCount(t testing.TB, s string) int {
	t.Helper()
	enc, err := reference()
	if err != nil {
		t.Fatalf("reference tokenizer: %v", err)
	}
	return len(enc.EncodeOrdinary(s))
}

func TestCountTokens(t *testing.T) {
	if loadVocab.Get() == nil {
		t.Fatal("tokenizer did not load offline")
	}
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
		{"<|endoftext|>", 7}, // special-token syntax counted as plain text
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := CountTokens(tt.text); got != tt.want {
				t.Errorf("CountTokens(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

// TestCountTokensMatchesReference compares with the reference encoder on every line of
// testdata/tokens.txt (prose, contractions, numbers, whitespace runs, CRLF, code, HTML, many
// scripts, emoji), on the whole file, and on this package's own source files.
func TestCountTokensMatchesReference(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "tokens.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"tokens.txt": string(data)}
	for i, line := range strings.SplitAfter(string(data), "\n") {
		cases["line "+string(rune('A'+i%26))+"/"+strings.TrimSpace(line[:min(len(line), 24)])] = line
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sources {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		cases[name] = string(b)
	}
	// Whitespace shapes the pattern treats specially, each between words and at the end.
	for _, ws := range []string{" ", "  ", "   ", "\t", " \t ", "\n", "\n\n", " \n", "\n ", "  \n  ", "\r\n", " \r\n\t", "\u00a0", "\u3000 "} {
		cases["whitespace "+strings.ReplaceAll(ws, "\n", `\n`)] = "a" + ws + "b" + ws + "!" + ws + "1" + ws
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			if got, want := CountTokens(text), referenceCount(t, text); got != want {
				t.Errorf("CountTokens = %d, reference %d for %q", got, want, text[:min(len(text), 200)])
			}
		})
	}
}

// TestCountTokensLongRuns: a pre-token as long as the text is counted in bounded parts. The
// estimate never falls below the reference (cuts only prevent merges) and stays within twice
// it; such runs are rare and their counts small, so the bound is what matters.
func TestCountTokensLongRuns(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"one word", strings.Repeat("abcdefghij", 600)},
		{"base64-like", strings.Repeat("QUJDRGVmZ2hpams0NTY3+/==", 250)},
		{"spaces", strings.Repeat(" ", 3000) + "x"},
		{"punctuation", strings.Repeat("=-", 3000)},
		{"multibyte letters", strings.Repeat("東京", 1500)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, want := CountTokens(tc.text), referenceCount(t, tc.text)
			if got < want || got > 2*want {
				t.Errorf("CountTokens = %d, reference %d", got, want)
			}
			t.Logf("CountTokens = %d, reference %d (%+.1f%%)", got, want, 100*float64(got-want)/float64(want))
		})
	}
}

// hugeTexts are the inputs that used to take seconds to minutes: one 120 KB word, 120 KB of
// spaces, and 3 MB of mixed text with long runs in it.
func hugeTexts() map[string]string {
	mixed := strings.Repeat("The quick brown fox jumps over the lazy dog; func f(x int) error { return nil }\n", 20_000) +
		strings.Repeat("A", 500_000) + strings.Repeat(" ", 500_000) + strings.Repeat("ž", 200_000)
	return map[string]string{
		"one 120 KB word":  strings.Repeat("a", 120_000),
		"120 KB of spaces": strings.Repeat(" ", 120_000),
		"3 MB mixed":       mixed,
		// Text without spaces is one pre-token, and here its parts never repeat.
		"3 MB of CJK": randomText([]rune("東京都の天気は晴れ時々曇りでしょう本日会議三件あります中文字符测试数据"), 1_000_000),
		// One 3 MB word of random letters: the worst case for the merge.
		"3 MB word": randomText([]rune("abcdefghijklmnopqrstuvwxyz"), 3_000_000),
	}
}

// randomText returns n runes drawn from alphabet by a fixed-seed generator.
func randomText(alphabet []rune, n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// TestCountTokensHugeInputs only checks that these inputs are counted at all and sensibly:
// before the bounded merge they would not finish within the test's deadline. (Timing is in
// BenchmarkCountTokensHuge.)
func TestCountTokensHugeInputs(t *testing.T) {
	for name, text := range hugeTexts() {
		t.Run(name, func(t *testing.T) {
			n := CountTokens(text)
			if n < len(text)/maxPiece || n > len(text) {
				t.Errorf("CountTokens(%d bytes) = %d, outside a plausible range", len(text), n)
			}
		})
	}
}

func BenchmarkCountTokens(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog; func f(x int) error { return nil }\n", 128)
	CountTokens(text) // load the BPE outside the timing
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		CountTokens(text)
	}
}

// BenchmarkCountTokensHuge is the token-counting figure of `make bench`: the time to count
// each huge input (with tokens, the count), and, as the anchor, the regexp-based reference
// encoder against CountTokens on a 30 KB word, where the reference can still be run (it is
// quadratic: 120 KB takes about 16 times as long). The anchor case reports ref-ms and
// x-faster, how many times faster CountTokens is than the reference on the same word.
func BenchmarkCountTokensHuge(b *testing.B) {
	CountTokens("warm")
	texts := hugeTexts()
	for _, name := range []string{"one 120 KB word", "120 KB of spaces", "3 MB mixed", "3 MB of CJK", "3 MB word"} {
		text := texts[name]
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			n := 0
			for b.Loop() {
				n = CountTokens(text)
			}
			b.ReportMetric(float64(n), "tokens")
		})
	}
	b.Run("anchor_30_KB_word", func(b *testing.B) {
		word := strings.Repeat("a", 30_000)
		var ours, ref time.Duration
		for b.Loop() {
			start := time.Now()
			CountTokens(word)
			ours += time.Since(start)
			start = time.Now()
			referenceCount(b, word)
			ref += time.Since(start)
		}
		b.ReportMetric(float64(ref.Microseconds())/1000/float64(b.N), "ref-ms")
		b.ReportMetric(float64(ref)/float64(max(ours, 1)), "x-faster")
	})
}
