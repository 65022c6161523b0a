package llm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is the default of api.requestIdleTimeoutSeconds (docs/settings.md, "api").
const DefaultIdleTimeout = 120 * time.Second

// WithIdleTimeout wraps p so that a request fails with ErrIdleTimeout when the model sends
// nothing for d: not the response headers, nor a chunk after the previous one. Cline has no
// such limit and a hung provider hangs the task. The clock only runs while we wait on the
// model (inside Stream and Recv), never while the caller is busy with a chunk. On expiry the
// underlying request's context is cancelled, which closes the connection. d <= 0 means
// DefaultIdleTimeout.
func WithIdleTimeout(p Provider, d time.Duration) Provider {
	if d <= 0 {
		d = DefaultIdleTimeout
	}
	return &idleProvider{p: p, d: d}
}

type idleProvider struct {
	p Provider
	d time.Duration
}

func (ip *idleProvider) Models(ctx context.Context) ([]string, error) { return ip.p.Models(ctx) }

func (ip *idleProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &idleWatch{d: ip.d}
	w.timer = time.AfterFunc(ip.d, func() {
		w.fired.Store(true)
		cancel()
	})
	s, err := ip.p.Stream(ctx, req)
	w.timer.Stop()
	if err != nil {
		cancel()
		return nil, w.explain(err)
	}
	return &idleStream{s: s, cancel: cancel, w: w}, nil
}

// idleWatch is the timer of one request and whether it fired.
type idleWatch struct {
	d     time.Duration
	timer *time.Timer
	fired atomic.Bool
}

// explain swaps the transport's "context canceled" for the idle timeout that caused it.
func (w *idleWatch) explain(err error) error {
	if w.fired.Load() && !errors.Is(err, ErrIdleTimeout) {
		return fmt.Errorf("%w: no chunk for %s (%w)", ErrIdleTimeout, w.d, err)
	}
	return err
}

type idleStream struct {
	s      Stream
	cancel context.CancelFunc
	w      *idleWatch
}

func (s *idleStream) Recv() (Chunk, error) {
	s.w.timer.Reset(s.w.d)
	c, err := s.s.Recv()
	s.w.timer.Stop()
	if err != nil {
		return c, s.w.explain(err)
	}
	return c, nil
}

func (s *idleStream) Close() error {
	s.w.timer.Stop()
	err := s.s.Close()
	s.cancel()
	return err
}
