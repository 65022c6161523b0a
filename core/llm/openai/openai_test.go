package openai

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/cairnhq/cairn/core/llm"
)

// replay serves a recorded SSE body from testdata and captures the request it got.
func replay(t *testing.T, file string) (*Provider, *http.Request) {
	t.Helper()
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	got := &http.Request{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = *r.Clone(r.Context())
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	p := New(Config{BaseURL: srv.URL + "/v1/", APIKey: "sk-test",
		Headers: map[string]string{"HTTP-Referer": "https://cairn.dev", "X-Title": "Cairn"}})
	return p, got
}

func TestProviderDialects(t *testing.T) {
	cost := 0.0123
	tests := []struct {
		file          string
		wantText      string
		wantReasoning string
		wantUsage     *llm.Usage
		wantErr       func(error) bool
	}{
		{"deepseek.sse", "Answer", "Think", &llm.Usage{InputTokens: 36, OutputTokens: 7, CacheReadTokens: 64}, nil},
		{"openrouter.sse", "Done.", "Plan.", &llm.Usage{InputTokens: 500, OutputTokens: 40, CacheReadTokens: 3000, CacheWriteTokens: 1500, TotalCost: &cost}, nil},
		{"ollama_no_usage.sse", "Hi", "", nil, nil},
		{"truncated.sse", "Half an ans", "", nil, func(err error) bool {
			return errors.Is(err, ErrTruncated) && llm.IsRetryable(err)
		}},
		{"error_event.sse", "Part", "", nil, func(err error) bool {
			var ae *llm.APIError
			return errors.As(err, &ae) && ae.Status == 429 && strings.Contains(ae.Message, "Rate limit") && llm.IsRetryable(err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, got := replay(t, tt.file)
			s, err := p.Stream(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}}}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			var text, reasoning string
			var usage *llm.Usage
			for {
				c, err := s.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if tt.wantErr == nil || !tt.wantErr(err) {
						t.Fatalf("Recv error %v", err)
					}
					break
				}
				text += c.Text
				reasoning += c.Reasoning
				if c.Usage != nil {
					usage = c.Usage
				}
			}
			if text != tt.wantText || reasoning != tt.wantReasoning {
				t.Errorf("text %q reasoning %q; want %q %q", text, reasoning, tt.wantText, tt.wantReasoning)
			}
			if !sameUsage(usage, tt.wantUsage) {
				t.Errorf("usage = %+v, want %+v", usage, tt.wantUsage)
			}
			if got.URL.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer sk-test" ||
				got.Header.Get("X-Title") != "Cairn" || got.Header.Get("HTTP-Referer") != "https://cairn.dev" {
				t.Errorf("request %s headers %v", got.URL.Path, got.Header)
			}
		})
	}
}

func sameUsage(a, b *llm.Usage) bool {
	if a == nil || b == nil {
		return a == b
	}
	if (a.TotalCost == nil) != (b.TotalCost == nil) || a.TotalCost != nil && *a.TotalCost != *b.TotalCost {
		return false
	}
	return a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens &&
		a.CacheReadTokens == b.CacheReadTokens && a.CacheWriteTokens == b.CacheWriteTokens
}

func TestBuildRequest(t *testing.T) {
	temp := 0.7
	user := llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("a"), llm.Text("b")}}
	tests := []struct {
		name    string
		req     llm.Request
		want    string // substrings of the JSON body
		notWant []string
		wantErr bool
	}{
		{"plain model keeps max_tokens and temperature",
			llm.Request{Model: "gpt-4o", System: "sys", MaxTokens: 100, Temperature: &temp, Messages: []llm.Message{user}},
			`"messages":[{"role":"system","content":"sys"},{"role":"user","content":"a\n\nb"}]|"max_tokens":100|"temperature":0.7|"stream_options":{"include_usage":true}|"stream":true`,
			[]string{"max_completion_tokens"}, false},
		{"reasoning model gets max_completion_tokens, no temperature",
			llm.Request{Model: "o3-mini", MaxTokens: 100, Temperature: &temp, Messages: []llm.Message{user}},
			`"max_completion_tokens":100`, []string{`"max_tokens"`, `"temperature"`}, false},
		{"no system prompt, no system message",
			llm.Request{Model: "m", Messages: []llm.Message{user}}, `"messages":[{"role":"user"`, []string{`"system"`}, false},
		{"image becomes a data URL part",
			llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{
				llm.Text("look"), {Type: llm.ContentImage, ImageMediaType: "image/jpeg", ImageData: "AAAA"}}}}},
			`"content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}}]`, nil, false},
		{"image in assistant message", llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant,
			Content: []llm.Content{{Type: llm.ContentImage, ImageMediaType: "image/png", ImageData: "AA"}}}}}, "", nil, true},
		{"empty image", llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser,
			Content: []llm.Content{{Type: llm.ContentImage}}}}}, "", nil, true},
		{"unknown role", llm.Request{Model: "m", Messages: []llm.Message{{Role: "tool"}}}, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			creq, err := buildRequest(tt.req)
			if tt.wantErr {
				if !errors.Is(err, ErrBadRequest) {
					t.Fatalf("error = %v, want ErrBadRequest", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(creq)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range strings.Split(tt.want, "|") {
				if !strings.Contains(string(b), w) {
					t.Errorf("body lacks %s:\n%s", w, b)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(string(b), nw) {
					t.Errorf("body has %s:\n%s", nw, b)
				}
			}
		})
	}
}

func TestMapError(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		header     http.Header
		wantStatus int
		wantCW     bool
		wantRetry  bool
	}{
		{"api error with Retry-After", &goopenai.APIError{HTTPStatusCode: 429, Message: "slow"}, http.Header{"Retry-After": {"3"}}, 429, false, true},
		{"context window by code", &goopenai.APIError{HTTPStatusCode: 400, Code: "context_length_exceeded", Message: "too long"}, nil, 400, true, false},
		{"context window by message", &goopenai.APIError{HTTPStatusCode: 400, Message: "This model's maximum context length is 8192 tokens"}, nil, 400, true, false},
		{"unparsed body", &goopenai.RequestError{HTTPStatusCode: 503, Body: []byte("upstream down")}, nil, 503, false, true},
		{"auth", &goopenai.APIError{HTTPStatusCode: 401, Message: "bad key"}, nil, 401, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapError(tt.err, tt.header)
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("mapError = %T %v", err, err)
			}
			if ae.Status != tt.wantStatus || ae.ContextWindowExceeded != tt.wantCW || llm.IsRetryable(err) != tt.wantRetry {
				t.Errorf("mapped %+v: status %d cw %v retryable %v", ae, ae.Status, ae.ContextWindowExceeded, llm.IsRetryable(err))
			}
			if tt.header != nil && ae.RetryAfter == 0 {
				t.Errorf("Retry-After lost: %+v", ae)
			}
		})
	}
	if err := mapError(io.ErrUnexpectedEOF, nil); !errors.Is(err, io.ErrUnexpectedEOF) || !llm.IsRetryable(err) {
		t.Errorf("transport error mapped to %v", err)
	}
}
