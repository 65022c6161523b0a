// Package event is a small publish/subscribe broker with per-subscriber queues.
//
// Delivery contract: every published event reaches every subscriber that was subscribed when it
// was published, in order — nothing is dropped. Events that the publisher marks as mergeable
// (streamed text deltas) are coalesced with the previous queued event of the same subscriber
// when that one has not been taken yet, so a slow subscriber receives fewer, larger deltas and
// its queue does not grow with the number of chunks. A subscriber ends when its context ends,
// when it closes, or when the broker closes: then it first takes what was already queued.
package event

import (
	"context"
	"sync"
)

// MergeFunc combines next into prev when both are queued for the same subscriber. It reports
// false when they cannot merge; next is then queued on its own.
type MergeFunc[E any] func(prev, next E) (E, bool)

// Broker fans events out to subscribers.
type Broker[E any] struct {
	merge MergeFunc[E]

	// mu guards subs and closed.
	mu     sync.Mutex
	subs   map[*Subscription[E]]struct{}
	closed bool
}

// New returns a broker; merge may be nil.
func New[E any](merge MergeFunc[E]) *Broker[E] {
	return &Broker[E]{merge: merge, subs: map[*Subscription[E]]struct{}{}}
}

// Subscription is one subscriber's queue.
type Subscription[E any] struct {
	b      *Broker[E]
	signal chan struct{}

	// mu guards queue, closed and ended.
	mu     sync.Mutex
	queue  []E
	closed bool // the subscriber left: nothing more is queued
	ended  bool // the broker closed: Next drains the queue, then reports ErrClosed
}

// Subscribe registers a subscriber; call it while holding whatever lock makes the caller's
// snapshot consistent with the events that follow it.
func (b *Broker[E]) Subscribe() *Subscription[E] {
	s := &Subscription[E]{b: b, signal: make(chan struct{}, 1)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.ended = true
		return s
	}
	b.subs[s] = struct{}{}
	return s
}

// Close ends the broker: each subscriber gets what is already queued for it, then
// ErrClosed, and the broker holds none of them any more. Publish does nothing afterwards.
func (b *Broker[E]) Close() {
	b.mu.Lock()
	subs := b.subs
	b.subs = map[*Subscription[E]]struct{}{}
	b.closed = true
	b.mu.Unlock()
	for s := range subs {
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		s.wake()
	}
}

// Publish queues e for every subscriber. mergeable allows coalescing with a queued event.
func (b *Broker[E]) Publish(e E, mergeable bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.push(e, mergeable && b.merge != nil)
	}
}

// Len returns the number of subscribers.
func (b *Broker[E]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

func (s *Subscription[E]) push(e E, mergeable bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	merged := false
	if mergeable && len(s.queue) > 0 {
		if m, ok := s.b.merge(s.queue[len(s.queue)-1], e); ok {
			s.queue[len(s.queue)-1] = m
			merged = true
		}
	}
	if !merged {
		s.queue = append(s.queue, e)
	}
	s.mu.Unlock()
	s.wake()
}

func (s *Subscription[E]) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Next returns the next event, blocking until one is published or ctx ends. It returns
// ErrClosed once the subscription or its broker is closed and nothing is left queued.
func (s *Subscription[E]) Next(ctx context.Context) (E, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			e := s.queue[0]
			var zero E
			s.queue[0] = zero
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return e, nil
		}
		if s.closed || s.ended {
			s.mu.Unlock()
			var zero E
			return zero, ErrClosed
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			var zero E
			return zero, ctx.Err()
		case <-s.signal:
		}
	}
}

// Close unsubscribes; queued events are discarded.
func (s *Subscription[E]) Close() {
	s.b.mu.Lock()
	delete(s.b.subs, s)
	s.b.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.mu.Unlock()
	s.wake()
}
