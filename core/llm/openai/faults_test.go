package openai

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestFaultsWithManners runs the adapter behind the retry policy against the fake model:
// errors only the user can fix cost one request and say what to fix; rate limits and server
// errors keep the backoff.
func TestFaultsWithManners(t *testing.T) {
	tests := []struct {
		status       int
		wantRequests int
		sentinel     error  // nil: retryable
		wantText     string // in the error
	}{
		{400, 1, llm.ErrBadRequest, "bad request"},
		{401, 1, llm.ErrInvalidAPIKey, "invalid API key"},
		{403, 1, llm.ErrForbidden, "forbidden"},
		{404, 1, llm.ErrNotFound, "model or URL not found"},
		{429, 3, nil, "HTTP 429"},
		{500, 3, nil, "HTTP 500"},
		{503, 3, nil, "HTTP 503"},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSpace(tc.wantText), func(t *testing.T) {
			srv := llmtest.New(nil, llmtest.Script{Turns: []llmtest.Turn{
				{Fault: &llmtest.Fault{Status: tc.status}, Times: 3},
			}})
			t.Cleanup(srv.Close)
			var slept []time.Duration
			p := llm.WithRetry(New(Config{BaseURL: srv.URL(), APIKey: "sk-test"}), llm.RetryPolicy{
				Attempts: 3, Base: time.Second, Max: 10 * time.Second,
				Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
			})
			_, err := p.Stream(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}}}})
			if err == nil {
				t.Fatal("no error")
			}
			if got := len(srv.Requests()); got != tc.wantRequests {
				t.Errorf("%d requests, want %d", got, tc.wantRequests)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error %q does not name %q", err, tc.wantText)
			}
			if tc.sentinel != nil {
				if !errors.Is(err, tc.sentinel) || !llm.IsPermanent(err) || len(slept) != 0 {
					t.Errorf("err = %v: Is(%v)=%v permanent=%v slept=%v", err, tc.sentinel,
						errors.Is(err, tc.sentinel), llm.IsPermanent(err), slept)
				}
			} else if llm.IsPermanent(err) || len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
				t.Errorf("err = %v: permanent=%v slept=%v, want the 1 s, 2 s backoff", err, llm.IsPermanent(err), slept)
			}
		})
	}
}
