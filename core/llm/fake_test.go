package llm

import (
	"context"
	"io"
	"sync"
)

// fakeProvider plays one step per Stream call; the hand-written fake for wrapper tests.
type fakeProvider struct {
	mu    sync.Mutex // guards steps and calls
	steps []fakeStep
	calls int
}

type fakeStep struct {
	openErr error   // returned by Stream
	chunks  []Chunk // then delivered by Recv
	recvErr error   // after the chunks; nil means io.EOF
	stall   bool    // Recv blocks until the request context ends
	stallAt int     // …after this many chunks
}

func (f *fakeProvider) Stream(ctx context.Context, _ Request) (Stream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	step := f.steps[min(f.calls, len(f.steps)-1)]
	f.calls++
	if step.stall && step.stallAt < 0 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if step.openErr != nil {
		return nil, step.openErr
	}
	return &fakeStream{ctx: ctx, step: step}, nil
}

func (f *fakeProvider) Models(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	step := f.steps[min(f.calls, len(f.steps)-1)]
	f.calls++
	return []string{"m"}, step.openErr
}

func (f *fakeProvider) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

type fakeStream struct {
	ctx    context.Context //nolint:containedctx // a fake of an HTTP body, which is bound to its request's context
	step   fakeStep
	i      int
	closed bool
}

func (s *fakeStream) Recv() (Chunk, error) {
	if s.step.stall && s.i == s.step.stallAt {
		<-s.ctx.Done()
		return Chunk{}, s.ctx.Err()
	}
	if s.i < len(s.step.chunks) {
		s.i++
		return s.step.chunks[s.i-1], nil
	}
	if s.step.recvErr != nil {
		return Chunk{}, s.step.recvErr
	}
	return Chunk{}, io.EOF
}

func (s *fakeStream) Close() error { s.closed = true; return nil }

// drain reads a stream to its end and returns the text and the final error (nil at io.EOF).
func drain(s Stream) (string, error) {
	var text string
	for {
		c, err := s.Recv()
		if err == io.EOF {
			return text, nil
		}
		if err != nil {
			return text, err
		}
		text += c.Text
	}
}
