package eval

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is part K of N of a run (`--shard K/N`, README "Benchmark"): N machines (a
// Kubernetes Indexed Job, docs/eval-kubernetes.yaml) each run one part, and `cairn eval
// report` merges their results files.
type Shard struct {
	K, N int
}

// ParseShard reads "K/N"; "" is the whole run (N 0).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(strings.TrimSpace(ks))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("%q: %w", s, ErrBadShard)
	}
	return Shard{K: k, N: n}, nil
}

// Of keeps the exercises of this part. Each exercise's part depends only on its key (a hash
// of LANG/NAME), so the split is the same on every machine, whatever the order or the
// selection, and the N parts together are the whole.
func (s Shard) Of(exercises []Exercise) []Exercise {
	if s.N <= 1 {
		return exercises
	}
	var out []Exercise
	for _, ex := range exercises {
		h := fnv.New32a()
		_, _ = h.Write([]byte(ex.Key())) // a hash's Write never fails
		if int(h.Sum32()%uint32(s.N)) == s.K-1 {
			out = append(out, ex)
		}
	}
	return out
}
