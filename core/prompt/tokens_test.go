package prompt

import (
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

// countTokens counts cl100k_base tokens offline (the vocabulary is embedded in the loader).
func countTokens(t testing.TB, s string) int {
	t.Helper()
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding("cl100k_base")
	})
	if encErr != nil {
		t.Fatalf("tokenizer: %v", encErr)
	}
	return len(enc.Encode(s, nil, nil))
}

// maxPromptTokens is the product goal for the prompt with every built-in tool offered and no
// user additions: well under Cline's ~11k for the same work.
const maxPromptTokens = 6000

func TestPromptTokenBudget(t *testing.T) {
	for _, tc := range promptCases() {
		n := countTokens(t, render(t, tc.in))
		t.Logf("%s: %d tokens", tc.name, n)
		if tc.name == "act" && n > maxPromptTokens {
			t.Errorf("ACT prompt with all tools is %d tokens, budget %d", n, maxPromptTokens)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	in := baseInput()
	in.MCPServers = testServers()
	in.Rules = testRules()
	b.ReportAllocs()
	for b.Loop() {
		_ = render(b, in)
	}
}
