package eval

import (
	"fmt"
	"testing"
)

// The parts of a sharded run are disjoint, cover the whole, and do not depend on the order.
func TestShardSplitsStably(t *testing.T) {
	var all, reversed []Exercise
	for i := range 200 {
		all = append(all, Exercise{Language: "go", Name: fmt.Sprintf("ex%03d", i)})
	}
	for i := len(all) - 1; i >= 0; i-- {
		reversed = append(reversed, all[i])
	}
	seen := map[string]int{}
	for k := 1; k <= 8; k++ {
		s := Shard{K: k, N: 8}
		part := s.Of(all)
		if len(part) == 0 || len(part) > 50 {
			t.Errorf("part %d/8 has %d of 200", k, len(part))
		}
		again := map[string]bool{}
		for _, ex := range s.Of(reversed) {
			again[ex.Key()] = true
		}
		for _, ex := range part {
			seen[ex.Key()]++
			if !again[ex.Key()] {
				t.Errorf("%s is in part %d/8 in one order only", ex.Key(), k)
			}
		}
	}
	if len(seen) != len(all) {
		t.Fatalf("the parts cover %d of %d exercises", len(seen), len(all))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s is in %d parts", k, n)
		}
	}
	for _, bad := range []string{"0/4", "5/4", "1/0", "x", "1/"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("3/8"); err != nil || s != (Shard{K: 3, N: 8}) {
		t.Errorf("ParseShard(3/8) = %v, %v", s, err)
	}
}
