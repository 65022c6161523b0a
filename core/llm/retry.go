package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// RetryPolicy configures the provider-level retry (docs/prompt.md, "Providers and retries").
type RetryPolicy struct {
	// Attempts is the total number of tries, the first included (Cline's default is 3).
	Attempts int
	// Base is the first backoff; each retry doubles it, up to Max.
	Base time.Duration
	Max  time.Duration
	// MaxRetryAfter caps a server-requested wait, so a hostile header cannot park a task for
	// an hour. Zero means one minute.
	MaxRetryAfter time.Duration
	// OnRetry, if set, is told before each wait so the UI can show "retrying in N s".
	// attempt counts retries from 1.
	OnRetry func(attempt int, delay time.Duration, err error)
	// Sleep waits d or until ctx ends; nil means a real timer. Tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetryPolicy is the documented one (docs/prompt.md, "Providers and retries"): 3
// tries, 1 s base, 10 s max.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{Attempts: 3, Base: time.Second, Max: 10 * time.Second}
}

// delay is how long to wait before retry number n (1-based) after err.
func (p RetryPolicy) delay(n int, err error) time.Duration {
	var ae *APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		limit := p.MaxRetryAfter
		if limit <= 0 {
			limit = time.Minute
		}
		return min(ae.RetryAfter, limit)
	}
	d := p.Base << (n - 1)
	if d <= 0 || (p.Max > 0 && d > p.Max) { // d <= 0 guards the shift overflowing
		d = p.Max
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// WithRetry wraps p so that requests failing with a retryable error (IsRetryable) before
// their first chunk are tried again. The first chunk is read eagerly for that reason: some
// gateways answer 200 and then put the rate-limit error in the first event. Once a chunk has
// been delivered, errors pass through: replaying half an answer is the task layer's call.
func WithRetry(p Provider, policy RetryPolicy) Provider {
	if policy.Attempts < 1 {
		policy.Attempts = 1
	}
	if policy.Sleep == nil {
		policy.Sleep = sleepCtx
	}
	return &retrying{p: p, policy: policy}
}

type retrying struct {
	p      Provider
	policy RetryPolicy
}

// do runs try until it succeeds, fails for good, or the attempts run out.
func (r *retrying) do(ctx context.Context, try func() error) error {
	for n := 1; ; n++ {
		err := try()
		if err == nil || n >= r.policy.Attempts || !IsRetryable(err) || ctx.Err() != nil {
			return err
		}
		d := r.policy.delay(n, err)
		if r.policy.OnRetry != nil {
			r.policy.OnRetry(n, d, err)
		}
		if serr := r.policy.Sleep(ctx, d); serr != nil {
			return fmt.Errorf("waiting to retry after %w: %w", err, serr)
		}
	}
}

func (r *retrying) Stream(ctx context.Context, req Request) (Stream, error) {
	var out Stream
	err := r.do(ctx, func() error {
		s, err := r.p.Stream(ctx, req)
		if err != nil {
			return err
		}
		first, err := s.Recv()
		if err != nil && !errors.Is(err, io.EOF) {
			_ = s.Close()
			return err
		}
		out = &peeked{Stream: s, first: first, firstErr: err, pending: true}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (r *retrying) Models(ctx context.Context) ([]string, error) {
	var ids []string
	err := r.do(ctx, func() error {
		var err error
		ids, err = r.p.Models(ctx)
		return err
	})
	return ids, err
}

// peeked replays the chunk WithRetry read ahead.
type peeked struct {
	Stream
	first    Chunk
	firstErr error
	pending  bool
}

func (s *peeked) Recv() (Chunk, error) {
	if s.pending {
		s.pending = s.firstErr != nil // an ended stream stays ended
		return s.first, s.firstErr
	}
	return s.Stream.Recv()
}
