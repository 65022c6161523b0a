package llm

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
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
	os.Setenv("TIKTOKEN_CACHE_DIR", dir) // an empty cache: nothing to fall back on
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type blockedTransport struct{}

func (blockedTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("network blocked in tests")
}

func TestCountTokens(t *testing.T) {
	if encoder() == nil {
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
	code := strings.Repeat("func main() { fmt.Println(\"hi\") }\n", 100)
	if n := CountTokens(code); n < len(code)/8 || n > len(code)/2 {
		t.Errorf("CountTokens(code of %d bytes) = %d, outside a plausible range", len(code), n)
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
