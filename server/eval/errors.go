package eval

import "errors"

// ErrResultsExist is returned by OpenResults, without resume, for a results file that already
// holds results: a run never overwrites them unless asked (README, "Benchmark").
var ErrResultsExist = errors.New("the results file already holds results")

// ErrBadShard is ParseShard's error for anything but K/N with 1 ≤ K ≤ N.
var ErrBadShard = errors.New("--shard must be K/N with 1 ≤ K ≤ N, like 2/8")
