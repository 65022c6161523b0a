package llmtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
)

// These tests drive the fake model with the real OpenAI adapter: each side checks the other.

func provider(srv *llmtest.Server) llm.Provider {
	return openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "test-key"})
}

func request(user string) llm.Request {
	return llm.Request{Model: "fake-model", System: "You are Cairn.", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text(user)}},
	}}
}

// collect reads a whole stream.
type result struct {
	chunks    []string
	text      string
	reasoning string
	usage     *llm.Usage
	err       error // nil when the stream ended with io.EOF
}

// mustClose closes c and fails the test when that reports an error.
func mustClose(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func collect(ctx context.Context, p llm.Provider, req llm.Request) (r result) {
	var text strings.Builder
	defer func() { r.text = text.String() }()
	s, err := p.Stream(ctx, req)
	if err != nil {
		r.err = err
		return r
	}
	defer func() {
		if err := s.Close(); err != nil && r.err == nil {
			r.err = err
		}
	}()
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return r
		}
		if err != nil {
			r.err = err
			return r
		}
		if c.Text != "" {
			r.chunks = append(r.chunks, c.Text)
		}
		text.WriteString(c.Text)
		r.reasoning += c.Reasoning
		if c.Usage != nil {
			r.usage = c.Usage
		}
	}
}

func TestStreamingChunksAndUsage(t *testing.T) {
	cost := 0.0042
	text := "Héllo wörld — streaming 日本語 text."
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{
		Text: text, Reasoning: "thinking about it", ChunkSize: 4,
		Usage: &llmtest.Usage{PromptTokens: 1200, CompletionTokens: 20, CachedTokens: 1000, Cost: &cost},
	}}})
	r := collect(t.Context(), provider(srv), request("<task>hi</task>"))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.text != text || r.reasoning != "thinking about it" {
		t.Errorf("text %q reasoning %q", r.text, r.reasoning)
	}
	for _, c := range r.chunks {
		if len(c) > 4 && utf8.RuneCountInString(c) > 1 || !utf8.ValidString(c) {
			t.Errorf("chunk %q breaks the 4-byte, rune-safe chunking", c)
		}
	}
	if len(r.chunks) < len(text)/4 {
		t.Errorf("%d chunks for %d bytes: not streamed in pieces", len(r.chunks), len(text))
	}
	want := llm.Usage{InputTokens: 200, OutputTokens: 20, CacheReadTokens: 1000, TotalCost: &cost}
	if r.usage == nil || r.usage.InputTokens != want.InputTokens || r.usage.OutputTokens != want.OutputTokens ||
		r.usage.CacheReadTokens != want.CacheReadTokens || r.usage.TotalCost == nil || *r.usage.TotalCost != cost {
		t.Errorf("usage = %+v, want %+v", r.usage, want)
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}

func TestRetriesAgainstFakeModel(t *testing.T) {
	ok := llmtest.Turn{Text: "ok"}
	tests := []struct {
		name      string
		turns     []llmtest.Turn
		wantDelay []time.Duration
		wantReqs  int
	}{
		{"429 with Retry-After", []llmtest.Turn{{Fault: &llmtest.Fault{Status: 429, RetryAfter: "2"}}, ok},
			[]time.Duration{2 * time.Second}, 2},
		{"500 twice then success", []llmtest.Turn{{Fault: &llmtest.Fault{Status: 500}, Times: 2}, ok},
			[]time.Duration{time.Second, 2 * time.Second}, 3},
		{"cut before first chunk", []llmtest.Turn{{Text: "lost", Fault: &llmtest.Fault{Cut: true}}, ok},
			[]time.Duration{time.Second}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Script{Turns: tt.turns})
			var slept []time.Duration
			var retries int
			p := llm.WithRetry(provider(srv), llm.RetryPolicy{
				Attempts: 3, Base: time.Second, Max: 10 * time.Second,
				OnRetry: func(int, time.Duration, error) { retries++ },
				Sleep:   func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
			})
			r := collect(t.Context(), p, request("hi"))
			if r.err != nil || r.text != "ok" {
				t.Fatalf("got %q, %v; want \"ok\"", r.text, r.err)
			}
			if len(srv.Requests()) != tt.wantReqs || retries != len(tt.wantDelay) {
				t.Errorf("%d requests, %d retries; want %d, %d", len(srv.Requests()), retries, tt.wantReqs, len(tt.wantDelay))
			}
			if len(slept) != len(tt.wantDelay) {
				t.Fatalf("slept %v, want %v", slept, tt.wantDelay)
			}
			for i := range slept {
				if slept[i] != tt.wantDelay[i] {
					t.Errorf("slept %v, want %v", slept, tt.wantDelay)
				}
			}
		})
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name     string
		turn     llmtest.Turn
		idle     time.Duration
		wantText string
		wantErr  func(error) bool
	}{
		{"cut mid-stream", llmtest.Turn{Text: "hello world", ChunkSize: 2, Fault: &llmtest.Fault{At: 6, Cut: true}}, 0,
			"hello ", llm.IsRetryable},
		{"malformed event", llmtest.Turn{Text: "hello world", Fault: &llmtest.Fault{At: 5, Malformed: true}}, 0,
			"hello", func(err error) bool { return errors.Is(err, openai.ErrMalformedEvent) }},
		{"hang hits the idle timeout", llmtest.Turn{Text: "hello world", Fault: &llmtest.Fault{At: 5, Hang: true}}, 300 * time.Millisecond,
			"hello", func(err error) bool { return errors.Is(err, llm.ErrIdleTimeout) }},
		{"hang before any text", llmtest.Turn{Text: "hello", Fault: &llmtest.Fault{Hang: true}}, 50 * time.Millisecond,
			"", func(err error) bool { return errors.Is(err, llm.ErrIdleTimeout) }},
		{"short stall is survived", llmtest.Turn{Text: "hello world", Fault: &llmtest.Fault{At: 5, Stall: llmtest.Duration(time.Millisecond)}}, time.Minute,
			"hello world", nil},
		{"429 without retry", llmtest.Turn{Fault: &llmtest.Fault{Status: 429, RetryAfter: "7"}}, 0,
			"", func(err error) bool {
				var ae *llm.APIError
				return errors.As(err, &ae) && ae.Status == 429 && ae.RetryAfter == 7*time.Second && llm.IsRetryable(err)
			}},
		{"context window", llmtest.Turn{Fault: &llmtest.Fault{Status: 400,
			Body: `{"error": {"message": "This model's maximum context length is 128000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}`}}, 0,
			"", llm.IsContextWindow},
		{"plain-text 502", llmtest.Turn{Fault: &llmtest.Fault{Status: 502, Body: "Bad Gateway"}}, 0,
			"", func(err error) bool {
				var ae *llm.APIError
				return errors.As(err, &ae) && ae.Status == 502 && strings.Contains(ae.Message, "Bad Gateway")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{tt.turn}})
			p := provider(srv)
			if tt.idle > 0 {
				p = llm.WithIdleTimeout(p, tt.idle)
			}
			r := collect(t.Context(), p, request("hi"))
			if r.text != tt.wantText {
				t.Errorf("text before the fault = %q, want %q", r.text, tt.wantText)
			}
			if tt.wantErr == nil && r.err != nil {
				t.Fatalf("unexpected error %v", r.err)
			}
			if tt.wantErr != nil && (r.err == nil || !tt.wantErr(r.err)) {
				t.Fatalf("error = %v, not the expected kind", r.err)
			}
		})
	}
}

func TestRequestLog(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "a"}, {Text: "b"}}})
	p := provider(srv)
	temp := 0.0
	req := llm.Request{
		Model: "fake-model-large", System: "You are Cairn.", MaxTokens: 512, Temperature: &temp,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>fix it</task>"), llm.Text("<environment_details>x</environment_details>")}},
			{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Looking.")}},
			{Role: llm.RoleUser, Content: []llm.Content{llm.Text("see"), {Type: llm.ContentImage, ImageMediaType: "image/png", ImageData: "iVBORw0KGgo="}}},
		},
	}
	if r := collect(t.Context(), p, req); r.err != nil || r.text != "a" {
		t.Fatalf("first request: %q, %v", r.text, r.err)
	}
	if r := collect(t.Context(), p, request("second")); r.err != nil || r.text != "b" {
		t.Fatalf("second request: %q, %v", r.text, r.err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	got := reqs[0]
	if got.Model != "fake-model-large" || got.MaxTokens != 512 || !got.IncludeUsage || got.Turn != 0 {
		t.Errorf("request 0 = model %q max %d usage %v turn %d", got.Model, got.MaxTokens, got.IncludeUsage, got.Turn)
	}
	wantRoles := []string{"system", "user", "assistant", "user"}
	if len(got.Messages) != len(wantRoles) {
		t.Fatalf("messages = %+v", got.Messages)
	}
	for i, role := range wantRoles {
		if got.Messages[i].Role != role {
			t.Errorf("message %d role %q, want %q", i, got.Messages[i].Role, role)
		}
	}
	if got.Messages[0].Text != "You are Cairn." || !strings.Contains(got.Messages[1].Text, "<task>fix it</task>") ||
		!strings.Contains(got.Messages[1].Text, "<environment_details>") {
		t.Errorf("texts = %q / %q", got.Messages[0].Text, got.Messages[1].Text)
	}
	if got.LastUser() != "see" || len(got.Messages[3].Images) != 1 || got.Messages[3].Images[0] != "data:image/png;base64,iVBORw0KGgo=" {
		t.Errorf("image message = %+v", got.Messages[3])
	}
	var raw map[string]any
	if err := json.Unmarshal(got.Raw, &raw); err != nil || raw["stream"] != true {
		t.Errorf("raw request %s: stream flag missing (%v)", got.Raw, err)
	}
	if tv, ok := raw["temperature"].(float64); !ok || tv > 1e-6 {
		t.Errorf("temperature 0 not sent: %v", raw["temperature"])
	}
	if reqs[1].Turn != 1 || reqs[1].LastUser() != "second" {
		t.Errorf("request 1 = %+v", reqs[1])
	}
}

func TestExpectations(t *testing.T) {
	tests := []struct {
		name   string
		expect llmtest.Expect
		want   []string // substrings of the recorded failures; none means no failure
	}{
		{"all hold", llmtest.Expect{Model: "fake-model", LastUserContains: []string{"<task>"},
			Contains: []string{"You are Cairn."}, NotContains: []string{"secret"}, Messages: 2}, nil},
		{"last user lacks", llmtest.Expect{LastUserContains: []string{"<feedback>"}}, []string{`does not contain "<feedback>"`}},
		{"last user has forbidden", llmtest.Expect{LastUserNotContains: []string{"<task>"}}, []string{`last user message contains "<task>"`}},
		{"system text forbidden", llmtest.Expect{NotContains: []string{"Cairn"}}, []string{`request contains "Cairn"`}},
		{"wrong model and count", llmtest.Expect{Model: "other", Messages: 5}, []string{`want "other"`, "2 messages, want 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect := tt.expect
			srv := llmtest.New(nil, llmtest.Script{Turns: []llmtest.Turn{{Text: "ok", Expect: &expect}}})
			defer srv.Close()
			if r := collect(t.Context(), provider(srv), request("<task>x</task>")); r.err != nil || r.text != "ok" {
				t.Fatalf("the scripted answer changed: %q, %v", r.text, r.err)
			}
			err := srv.Err()
			if len(tt.want) == 0 && err != nil {
				t.Fatalf("unexpected failure: %v", err)
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("failures %v lack %q", err, w)
				}
			}
		})
	}
}

func TestScriptEnd(t *testing.T) {
	srv := llmtest.New(nil, llmtest.Script{Turns: []llmtest.Turn{{Text: "only"}}})
	defer srv.Close()
	p := provider(srv)
	if r := collect(t.Context(), p, request("1")); r.text != "only" {
		t.Fatalf("first = %q, %v", r.text, r.err)
	}
	r := collect(t.Context(), p, request("2"))
	var ae *llm.APIError
	if !errors.As(r.err, &ae) || ae.Status != 500 {
		t.Errorf("past the script: %v, want HTTP 500", r.err)
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "no turn left") {
		t.Errorf("Err() = %v, want the overrun recorded", err)
	}

	end := llmtest.EndTurn()
	srv.SetScript(llmtest.Script{OnEnd: &end})
	if r := collect(t.Context(), p, request("3")); !strings.Contains(r.text, "<attempt_completion>") {
		t.Errorf("OnEnd answer = %q, %v", r.text, r.err)
	}
}

func TestModelsAndControlEndpoints(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Models: []string{"a", "b"}, Turns: []llmtest.Turn{{Text: "x"}}})
	ids, err := provider(srv).Models(t.Context())
	if err != nil || strings.Join(ids, ",") != "a,b" {
		t.Fatalf("Models = %v, %v", ids, err)
	}
	base := strings.TrimSuffix(srv.URL(), "/v1")
	resp, err := http.Post(base+"/_script", "application/json", strings.NewReader(`{"turns": [{"text": "replaced"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /_script = %s", resp.Status)
	}
	if r := collect(t.Context(), provider(srv), request("q")); r.text != "replaced" {
		t.Fatalf("after POST /_script: %q, %v", r.text, r.err)
	}
	resp, err = http.Get(base + "/_requests")
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, resp.Body)
	var reqs []llmtest.Request
	if err := json.NewDecoder(resp.Body).Decode(&reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].LastUser() != "q" {
		t.Errorf("GET /_requests = %+v", reqs)
	}
	resp2, err := http.Post(base+"/_script", "application/json", strings.NewReader(`{"turns": [{"txet": "typo"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, resp2.Body)
	if resp2.StatusCode != http.StatusBadRequest {
		t.Errorf("POST /_script with a typo = %s, want 400", resp2.Status)
	}
}

// BenchmarkStream100KB streams a 100 KB answer in 20-byte events through the real adapter:
// the fake's and the adapter's cost per chunk, the shape of the P1 parser benchmark's input.
func BenchmarkStream100KB(b *testing.B) {
	text := strings.Repeat("func f() error { return nil }\n", 100_000/30)
	srv := llmtest.New(b, llmtest.Script{OnEnd: &llmtest.Turn{Text: text, ChunkSize: 20}})
	p := provider(srv)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if r := collect(b.Context(), p, request("go")); r.err != nil || len(r.text) != len(text) {
			b.Fatalf("got %d bytes, %v", len(r.text), r.err)
		}
	}
}

// ForgetText keeps no request text, and the usage it estimates is the same as without it.
func TestForgetTextKeepsCountsOnly(t *testing.T) {
	usage := map[bool]*llm.Usage{}
	for _, forget := range []bool{false, true} {
		srv := llmtest.New(t, llmtest.Script{ForgetText: forget, Turns: []llmtest.Turn{{Text: "a"}, {Text: "b"}}})
		p := provider(srv)
		var r result
		for _, text := range []string{"first " + strings.Repeat("long prompt ", 500), "second"} {
			if r = collect(t.Context(), p, request(text)); r.err != nil {
				t.Fatal(r.err)
			}
		}
		usage[forget] = r.usage
		reqs := srv.Requests()
		if len(reqs) != 2 || reqs[0].Turn != 0 || reqs[1].Turn != 1 || !reqs[1].IncludeUsage {
			t.Fatalf("forget %v: requests = %+v", forget, reqs)
		}
		for i, req := range reqs {
			if kept := len(req.Messages) > 0 || len(req.Raw) > 0; kept == forget {
				t.Errorf("forget %v: request %d keeps %d messages and %d raw bytes", forget, i, len(req.Messages), len(req.Raw))
			}
		}
	}
	if usage[false] == nil || usage[true] == nil || usage[false].InputTokens != usage[true].InputTokens ||
		usage[false].OutputTokens != usage[true].OutputTokens {
		t.Fatalf("usage %+v without ForgetText, %+v with it", usage[false], usage[true])
	}
}
