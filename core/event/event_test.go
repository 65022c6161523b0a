package event

import (
	"context"
	"testing"
	"time"
)

type ev struct {
	key   int
	delta string
}

func mergeEv(a, b ev) (ev, bool) {
	if a.key != b.key {
		return a, false
	}
	return ev{a.key, a.delta + b.delta}, true
}

func TestOrderAndMerge(t *testing.T) {
	b := New(mergeEv)
	s := b.Subscribe()
	defer s.Close()
	b.Publish(ev{1, "a"}, true)
	b.Publish(ev{1, "b"}, true)
	b.Publish(ev{2, "x"}, false)
	b.Publish(ev{2, "y"}, false) // not mergeable: kept apart
	b.Publish(ev{3, "c"}, true)
	b.Publish(ev{3, "d"}, true)

	ctx := context.Background()
	want := []ev{{1, "ab"}, {2, "x"}, {2, "y"}, {3, "cd"}}
	for i, w := range want {
		got, err := s.Next(ctx)
		if err != nil || got != w {
			t.Fatalf("event %d = %+v, %v; want %+v", i, got, err, w)
		}
	}
}

func TestNextHonoursContext(t *testing.T) {
	b := New[ev](nil)
	s := b.Subscribe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Next(ctx); err == nil {
		t.Fatal("Next returned without an event")
	}
	s.Close()
	if b.Len() != 0 {
		t.Fatalf("subscribers after Close = %d", b.Len())
	}
	b.Publish(ev{1, "late"}, false) // must not block or panic after Close
}

func TestConcurrentDeliveryKeepsEverything(t *testing.T) {
	b := New(mergeEv)
	s := b.Subscribe()
	defer s.Close()
	const n = 10000
	go func() {
		for i := 0; i < n; i++ {
			b.Publish(ev{1, "z"}, true)
		}
		b.Publish(ev{9, "end"}, false)
	}()
	total := 0
	for {
		e, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if e.key == 9 {
			break
		}
		total += len(e.delta)
	}
	if total != n {
		t.Fatalf("delivered %d bytes of deltas, want %d", total, n)
	}
}
