package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"429", &APIError{Status: 429}, true},
		{"500", &APIError{Status: 500}, true},
		{"503 wrapped", fmt.Errorf("call: %w", &APIError{Status: 503}), true},
		{"408", &APIError{Status: 408}, true},
		{"400", &APIError{Status: 400}, false},
		{"401", &APIError{Status: 401}, false},
		{"context window", &APIError{Status: 400, ContextWindowExceeded: true}, false},
		{"canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{"idle", fmt.Errorf("%w: no chunk for 2m0s", ErrIdleTimeout), false},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"conn reset", &url.Error{Op: "Post", URL: "u", Err: syscall.ECONNRESET}, true},
		{"conn refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"plain error", errors.New("bad json"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestIsPermanent(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		sentinel error // nil: not permanent
		text     string
	}{
		{"400", &APIError{Status: 400, Message: "unknown field"}, ErrBadRequest, "model API error (HTTP 400): bad request (the provider rejected the request; check the model name and its settings): unknown field"},
		{"401 wrapped", fmt.Errorf("call: %w", &APIError{Status: 401, Message: "Incorrect API key provided"}), ErrInvalidAPIKey, "HTTP 401): invalid API key (check the key in the settings): Incorrect API key provided"},
		{"403", &APIError{Status: 403, Message: "no access"}, ErrForbidden, "forbidden"},
		{"404", &APIError{Status: 404, Message: "The model `gpt-9` does not exist"}, ErrNotFound, "model or URL not found (check the model name and the base URL)"},
		{"context window 400", &APIError{Status: 400, ContextWindowExceeded: true, Message: "too long"}, nil, "model API error (HTTP 400): too long"},
		{"429", &APIError{Status: 429, Message: "slow down"}, nil, "model API error (HTTP 429): slow down"},
		{"500", &APIError{Status: 500, Message: "oops"}, nil, "model API error (HTTP 500): oops"},
		{"in-stream error", &APIError{Message: "boom"}, nil, "model API error: boom"},
		{"not an API error", io.ErrUnexpectedEOF, nil, "unexpected EOF"},
	}
	sentinels := []error{ErrBadRequest, ErrInvalidAPIKey, ErrForbidden, ErrNotFound}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsPermanent(tt.err); got != (tt.sentinel != nil) {
				t.Errorf("IsPermanent = %v", got)
			}
			if tt.sentinel != nil && IsRetryable(tt.err) {
				t.Error("a permanent error is retryable")
			}
			for _, s := range sentinels {
				if errors.Is(tt.err, s) != (s == tt.sentinel) {
					t.Errorf("errors.Is(err, %v) = %v", s, errors.Is(tt.err, s))
				}
			}
			if !strings.Contains(tt.err.Error(), tt.text) {
				t.Errorf("Error() = %q, want it to contain %q", tt.err.Error(), tt.text)
			}
		})
	}
}

func TestLooksLikeContextWindow(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		want   bool
	}{
		{400, "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens", true},
		{400, "context_length_exceeded", true},
		{400, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Too many tokens", true},
		{400, "prompt is too long: 210000 tokens > 200000 maximum", true},
		{0, "This endpoint's maximum context length is 65536 tokens", true},
		{413, "Request too large: context window exceeded", true},
		{400, "invalid model id", false},
		{429, "maximum context length", false},
		{500, "context length", false},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			if got := LooksLikeContextWindow(tt.status, tt.msg); got != tt.want {
				t.Errorf("LooksLikeContextWindow(%d, %q) = %v, want %v", tt.status, tt.msg, got, tt.want)
			}
		})
	}
	if !IsContextWindow(fmt.Errorf("wrapped: %w", &APIError{Status: 400, ContextWindowExceeded: true})) {
		t.Error("IsContextWindow does not see through wrapping")
	}
	if IsContextWindow(&APIError{Status: 400}) {
		t.Error("IsContextWindow true for a plain 400")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"ms wins", map[string]string{"Retry-After-Ms": "250", "Retry-After": "7"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{"date in past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"reset delta", map[string]string{"X-Ratelimit-Reset": "4"}, 4 * time.Second},
		{"reset unix", map[string]string{"Ratelimit-Reset": fmt.Sprint(now.Add(12 * time.Second).Unix())}, 12 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := ParseRetryAfter(h, now); got != tt.want {
				t.Errorf("ParseRetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	inner := errors.New("vendor")
	e := &APIError{Status: 429, Message: "slow down", Err: inner}
	if got, want := e.Error(), "model API error (HTTP 429): slow down"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, inner) {
		t.Error("APIError does not unwrap to the adapter's error")
	}
}
