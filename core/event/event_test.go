package event

import (
	"context"
	"errors"
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

// Closing the broker lets every subscriber take what was queued before it closed, then ends
// it with ErrClosed; the broker holds no subscriber afterwards, and one that subscribes
// later is ended at once.
func TestBrokerCloseEndsSubscribers(t *testing.T) {
	cases := []struct {
		name   string
		queued []ev
		late   bool // subscribe after the broker closed
	}{
		{name: "nothing queued"},
		{name: "queued events first", queued: []ev{{1, "a"}, {2, "b"}}},
		{name: "merged deltas first", queued: []ev{{1, "a"}, {1, "b"}}},
		{name: "subscribed after close", late: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New(mergeEv)
			var subs []*Subscription[ev]
			if !c.late {
				subs = append(subs, b.Subscribe(), b.Subscribe())
			}
			for _, e := range c.queued {
				b.Publish(e, true)
			}
			b.Close()
			if c.late {
				subs = append(subs, b.Subscribe())
			}
			if n := b.Len(); n != 0 {
				t.Fatalf("broker holds %d subscribers after Close", n)
			}
			b.Publish(ev{9, "after"}, false)
			for i, s := range subs {
				var got string
				for {
					e, err := s.Next(context.Background())
					if errors.Is(err, ErrClosed) {
						break
					}
					if err != nil {
						t.Fatalf("subscriber %d: %v", i, err)
					}
					got += e.delta
				}
				want := ""
				for _, e := range c.queued {
					want += e.delta
				}
				if got != want {
					t.Fatalf("subscriber %d took %q before the end, want %q", i, got, want)
				}
			}
		})
	}
}

// A subscription that closed itself returns ErrClosed instead of waiting forever.
func TestNextAfterCloseEnds(t *testing.T) {
	b := New[ev](nil)
	s := b.Subscribe()
	b.Publish(ev{1, "dropped"}, false)
	s.Close()
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close = %v, want ErrClosed", err)
	}
}
