package llmtest_test

import (
	"errors"
	"io"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
)

// TestPrefixCacheReportsSharedPrefix: with PrefixCache, the usage a request reports counts as
// cached the prompt it shares from the start with an earlier request, and nothing once the
// first message differs.
func TestPrefixCacheReportsSharedPrefix(t *testing.T) {
	turn := llmtest.Turn{Text: "ok"}
	srv := llmtest.New(t, llmtest.Script{PrefixCache: true, Turns: []llmtest.Turn{turn, turn, turn}})
	p := openai.New(openai.Config{BaseURL: srv.URL()})
	user := func(s string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text(s)}}
	}
	asst := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("ok")}}
	const system = "You are a careful assistant."
	first := []llm.Message{user("read the file please, all of it")}
	second := append(append([]llm.Message(nil), first...), asst, user("now edit it"))
	changed := []llm.Message{user("READ the file please, all of it"), asst, user("now edit it")}
	tests := []struct {
		name       string
		msgs       []llm.Message
		wantCached func(prompt, cached int64) bool
	}{
		{"first request: nothing cached", first, func(_, c int64) bool { return c == 0 }},
		{"the conversation grew: its earlier prompt is cached", second, func(p, c int64) bool { return c > 0 && c < p }},
		{"the first message changed: only the system prompt", changed, func(_, c int64) bool { return c > 0 && c <= int64(len(system)+32)/4 }},
	}
	for i, tt := range tests {
		s, err := p.Stream(t.Context(), llm.Request{Model: "m", System: system, Messages: tt.msgs})
		if err != nil {
			t.Fatal(err)
		}
		var usage *llm.Usage
		for {
			c, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Usage != nil {
				usage = c.Usage
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		rec := srv.Requests()[i]
		if !tt.wantCached(rec.PromptTokens, rec.CachedTokens) {
			t.Errorf("%s: %d of %d prompt tokens cached", tt.name, rec.CachedTokens, rec.PromptTokens)
		}
		if usage == nil || usage.CacheReadTokens != rec.CachedTokens || usage.InputTokens != rec.PromptTokens-rec.CachedTokens {
			t.Errorf("%s: reported usage %+v, recorded %d/%d", tt.name, usage, rec.CachedTokens, rec.PromptTokens)
		}
	}
}
