package eval

import "errors"

// ErrResultsExist is returned by OpenResults, without resume, for a results file that already
// holds results: a run never overwrites them unless asked (README, "Benchmark").
var ErrResultsExist = errors.New("the results file already holds results")
