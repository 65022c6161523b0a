package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The idle timeout is a few milliseconds here: the tests assert which error ends the stream,
// never how long anything took.
func TestWithIdleTimeout(t *testing.T) {
	const d = 100 * time.Millisecond
	tests := []struct {
		name     string
		step     fakeStep
		wantText string
		wantIdle bool
	}{
		{"stall before headers", fakeStep{stall: true, stallAt: -1}, "", true},
		{"stall before first chunk", fakeStep{stall: true, stallAt: 0, chunks: []Chunk{{Text: "a"}}}, "", true},
		{"stall mid-stream", fakeStep{stall: true, stallAt: 2, chunks: []Chunk{{Text: "a"}, {Text: "b"}, {Text: "c"}}}, "ab", true},
		{"no stall", fakeStep{chunks: []Chunk{{Text: "a"}, {Text: "b"}}}, "ab", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := WithIdleTimeout(&fakeProvider{steps: []fakeStep{tt.step}}, d)
			var text string
			s, err := p.Stream(t.Context(), Request{})
			if err == nil {
				text, err = drain(s)
				_ = s.Close()
			}
			if got := errors.Is(err, ErrIdleTimeout); got != tt.wantIdle {
				t.Fatalf("error = %v; idle timeout %v, want %v", err, got, tt.wantIdle)
			}
			if tt.wantIdle && !errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, want the underlying cancellation kept", err)
			}
			if text != tt.wantText {
				t.Errorf("text = %q, want %q", text, tt.wantText)
			}
		})
	}
}

// A slow consumer is not an idle model: time spent between Recv calls does not count.
func TestIdleTimeoutIgnoresConsumerTime(t *testing.T) {
	const d = 50 * time.Millisecond
	p := WithIdleTimeout(&fakeProvider{steps: []fakeStep{{chunks: []Chunk{{Text: "a"}, {Text: "b"}}}}}, d)
	s, err := p.Stream(t.Context(), Request{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * d) // the caller is busy rendering
	c, err := s.Recv()
	if err != nil || c.Text != "b" {
		t.Fatalf("Recv after a slow consumer = %q, %v; want \"b\", nil", c.Text, err)
	}
}

func TestIdleTimeoutCallerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := WithIdleTimeout(&fakeProvider{steps: []fakeStep{{stall: true, stallAt: -1}}}, time.Hour).Stream(ctx, Request{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrIdleTimeout) {
		t.Fatalf("error = %v, want plain cancellation", err)
	}
}
