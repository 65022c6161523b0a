package llm

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

type retryRecord struct {
	attempts []int
	delays   []time.Duration
	slept    []time.Duration
}

func (r *retryRecord) policy(attempts int) RetryPolicy {
	return RetryPolicy{
		Attempts: attempts, Base: time.Second, Max: 10 * time.Second,
		OnRetry: func(n int, d time.Duration, _ error) {
			r.attempts = append(r.attempts, n)
			r.delays = append(r.delays, d)
		},
		Sleep: func(_ context.Context, d time.Duration) error {
			r.slept = append(r.slept, d)
			return nil
		},
	}
}

func TestWithRetry(t *testing.T) {
	ok := fakeStep{chunks: []Chunk{{Text: "hello"}, {Text: " world"}}}
	tests := []struct {
		name      string
		attempts  int
		steps     []fakeStep
		wantText  string
		wantErr   func(error) bool
		wantCalls int
		wantDelay []time.Duration
	}{
		{"success first try", 3, []fakeStep{ok}, "hello world", nil, 1, nil},
		{"429 then ok honours Retry-After", 3,
			[]fakeStep{{openErr: &APIError{Status: 429, RetryAfter: 3 * time.Second}}, ok},
			"hello world", nil, 2, []time.Duration{3 * time.Second}},
		{"5xx backs off exponentially", 3,
			[]fakeStep{{openErr: &APIError{Status: 500}}, {openErr: &APIError{Status: 502}}, ok},
			"hello world", nil, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"gives up after attempts", 3,
			[]fakeStep{{openErr: &APIError{Status: 503}}},
			"", func(err error) bool { var ae *APIError; return errors.As(err, &ae) && ae.Status == 503 },
			3, []time.Duration{time.Second, 2 * time.Second}},
		{"400 not retried", 3,
			[]fakeStep{{openErr: &APIError{Status: 400, Message: "bad"}}, ok},
			"", func(err error) bool { var ae *APIError; return errors.As(err, &ae) && ae.Status == 400 }, 1, nil},
		{"context window not retried", 3,
			[]fakeStep{{openErr: &APIError{Status: 400, ContextWindowExceeded: true}}, ok},
			"", IsContextWindow, 1, nil},
		{"error in first chunk retried", 3,
			[]fakeStep{{recvErr: io.ErrUnexpectedEOF}, ok},
			"hello world", nil, 2, []time.Duration{time.Second}},
		{"error after first chunk passes through", 3,
			[]fakeStep{{chunks: []Chunk{{Text: "hel"}}, recvErr: io.ErrUnexpectedEOF}, ok},
			"hel", func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }, 1, nil},
		{"empty response is not retried here", 3,
			[]fakeStep{{}, ok}, "", nil, 1, nil},
		{"Retry-After capped", 2,
			[]fakeStep{{openErr: &APIError{Status: 429, RetryAfter: time.Hour}}, ok},
			"hello world", nil, 2, []time.Duration{time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := &fakeProvider{steps: tt.steps}
			rec := &retryRecord{}
			p := WithRetry(fp, rec.policy(tt.attempts))
			var text string
			s, err := p.Stream(t.Context(), Request{Model: "m"})
			if err == nil {
				text, err = drain(s)
				_ = s.Close()
			}
			if tt.wantErr == nil && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != nil && (err == nil || !tt.wantErr(err)) {
				t.Fatalf("error = %v, not the expected kind", err)
			}
			if text != tt.wantText {
				t.Errorf("text = %q, want %q", text, tt.wantText)
			}
			if fp.Calls() != tt.wantCalls {
				t.Errorf("calls = %d, want %d", fp.Calls(), tt.wantCalls)
			}
			if !equalDurations(rec.slept, tt.wantDelay) || !equalDurations(rec.delays, tt.wantDelay) {
				t.Errorf("slept %v, reported %v, want %v", rec.slept, rec.delays, tt.wantDelay)
			}
			for i, n := range rec.attempts {
				if n != i+1 {
					t.Errorf("OnRetry attempt numbers = %v, want 1,2,…", rec.attempts)
				}
			}
		})
	}
}

func TestWithRetryStopsWhenCancelled(t *testing.T) {
	fp := &fakeProvider{steps: []fakeStep{{openErr: &APIError{Status: 500}}}}
	ctx, cancel := context.WithCancel(t.Context())
	pol := DefaultRetryPolicy()
	pol.Sleep = func(ctx context.Context, _ time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}
	_, err := WithRetry(fp, pol).Stream(ctx, Request{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Errorf("error %v lost the API error that caused the wait", err)
	}
	if fp.Calls() != 1 {
		t.Errorf("calls = %d, want 1", fp.Calls())
	}
}

func TestWithRetryModels(t *testing.T) {
	fp := &fakeProvider{steps: []fakeStep{{openErr: &APIError{Status: 502}}, {}}}
	rec := &retryRecord{}
	ids, err := WithRetry(fp, rec.policy(3)).Models(t.Context())
	if err != nil || len(ids) != 1 || fp.Calls() != 2 {
		t.Fatalf("Models = %v, %v after %d calls; want [m], nil after 2", ids, err, fp.Calls())
	}
}

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{Base: time.Second, Max: 10 * time.Second}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, w := range want {
		if got := p.delay(i+1, errors.New("x")); got != w {
			t.Errorf("delay(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := p.delay(80, errors.New("x")); got != 10*time.Second {
		t.Errorf("delay(80) = %v, want the max (shift overflow)", got)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
