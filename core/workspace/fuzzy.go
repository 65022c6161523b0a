package workspace

// A small path-aware fuzzy scorer. Libraries such as sahilm/fuzzy rank generic strings and
// allocate per match; paths want the opposite bias (the file name matters more than the
// folders), and 100k candidates per keystroke want an allocation-free linear pass. This is a
// two-pass window search in the spirit of fzf's v1 algorithm: find the rightmost occurrence of
// the query as a subsequence (it tends to fall in the file name), tighten it from the left,
// then score the matched positions.

// Scoring weights; only their relative sizes matter.
const (
	scoreChar        = 16
	bonusConsecutive = 16
	bonusBoundary    = 12
	bonusFirstChar   = 8
	bonusBasename    = 6
	bonusExactBase   = 120
	bonusBasePrefix  = 60
	penaltyGapStart  = 4
	penaltyGapExtend = 1
)

// fuzzyScore scores query q (lower case, no spaces) against path, whose lower-case form is
// lower and whose file name starts at byte base. ok is false when q is not a subsequence.
func fuzzyScore(path, lower string, base int, q string) (score int, ok bool) {
	if len(q) == 0 {
		return 0, true
	}
	if len(q) > len(lower) {
		return 0, false
	}
	// Rightmost occurrence: scan backwards for q reversed.
	qi := len(q) - 1
	start := -1
	for i := len(lower) - 1; i >= 0; i-- {
		if lower[i] == q[qi] {
			qi--
			if qi < 0 {
				start = i
				break
			}
		}
	}
	if start < 0 {
		return 0, false
	}
	// Tighten from the left: the greedy forward match from start keeps runs together.
	qi = 0
	prev := -2
	inGap := false
	for i := start; i < len(lower) && qi < len(q); i++ {
		if lower[i] != q[qi] {
			if prev >= 0 {
				if !inGap {
					score -= penaltyGapStart
					inGap = true
				} else {
					score -= penaltyGapExtend
				}
			}
			continue
		}
		inGap = false
		score += scoreChar
		if prev == i-1 {
			score += bonusConsecutive
		}
		if isBoundary(path, i) {
			score += bonusBoundary
			if qi == 0 {
				score += bonusFirstChar
			}
		}
		if i >= base {
			score += bonusBasename
		}
		prev = i
		qi++
	}
	name := lower[base:]
	switch {
	case name == q:
		score += bonusExactBase
	case len(name) > len(q) && name[:len(q)] == q:
		score += bonusBasePrefix
	}
	// Shorter paths win ties: a small, bounded length penalty.
	score -= min(len(path), 64) / 8
	return score, true
}

// isBoundary reports whether path[i] starts a word: after a separator or a lower→upper case
// change (camelCase).
func isBoundary(path string, i int) bool {
	if i == 0 {
		return true
	}
	switch path[i-1] {
	case '/', '_', '-', '.', ' ', ':':
		return true
	}
	c, p := path[i], path[i-1]
	return c >= 'A' && c <= 'Z' && p >= 'a' && p <= 'z'
}
