package task

import (
	"strings"
	"testing"
)

// Text deltas queued for a subscriber that has fallen behind merge into one event whose text
// grows in place: merging n deltas allocates a handful of times, not once (a copy of all the
// text so far) per delta, and the texts of earlier merges are left as they were.
func TestMergedDeltasGrowInPlace(t *testing.T) {
	cases := []struct {
		name      string
		deltas    int
		size      int
		maxAllocs float64
	}{
		{name: "small chunks", deltas: 1000, size: 10, maxAllocs: 30},
		{name: "model-sized chunks", deltas: 2000, size: 100, maxAllocs: 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			delta := strings.Repeat("x", c.size-1) + "\n"
			merge := func() (Event, []string) {
				ev := Event{Kind: EventAppended, Index: 3, Delta: delta}
				var seen []string
				for range c.deltas - 1 {
					var ok bool
					if ev, ok = mergeEvents(ev, Event{Kind: EventAppended, Index: 3, Delta: delta}); !ok {
						t.Fatal("deltas of one message did not merge")
					}
					if len(seen) < 3 {
						seen = append(seen, ev.Delta)
					}
				}
				return ev, seen
			}
			ev, seen := merge()
			if ev.Delta != strings.Repeat(delta, c.deltas) {
				t.Fatalf("merged text has %d bytes, want %d", len(ev.Delta), c.deltas*c.size)
			}
			for i, s := range seen {
				if s != strings.Repeat(delta, i+2) {
					t.Fatalf("text of merge %d changed to %d bytes", i+1, len(s))
				}
			}
			if n := testing.AllocsPerRun(3, func() { merge() }); n > c.maxAllocs {
				t.Fatalf("merging %d deltas allocated %.0f times, want at most %.0f", c.deltas, n, c.maxAllocs)
			}
		})
	}
	if _, ok := mergeEvents(Event{Kind: EventAppended, Index: 1, Delta: "a"}, Event{Kind: EventAppended, Index: 2, Delta: "b"}); ok {
		t.Fatal("deltas of different messages merged")
	}
}
