package llm

import (
	"math"
	"unicode/utf8"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/cairnhq/cairn/core/lazy"
)

// tokenRanks is the BPE vocabulary used for estimates: cl100k_base, embedded in the loader
// module, so nothing is downloaded at run time. Across vendors any modern BPE is an estimate
// of the same quality; this one is the most common.
const tokenRanks = "cl100k_base.tiktoken"

// maxPiece bounds the bytes one BPE merge works on. Merging is quadratic in the piece length,
// and a pre-token can be as long as the text (a minified file, a base64 blob, a run of
// spaces): longer pieces are counted in maxPiece-byte parts, cut at rune boundaries. Real
// words are far shorter, so the count only changes for such runs, and by little.
const maxPiece = 64

// vocab is the loaded vocabulary: every token's rank, and the ranks of the two-byte tokens in
// a table, since the first round of every merge looks up each adjacent pair of bytes.
type vocab struct {
	ranks map[string]int
	pairs [1 << 16]int32 // rank of the token b0 b1 at b0<<8|b1; -1 when there is none
}

// loadVocab loads the vocabulary once; nil when it cannot be loaded (CountTokens then estimates
// from the length).
var loadVocab = lazy.Value[*vocab]{New: func() *vocab {
	r, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(tokenRanks)
	if err != nil {
		return nil
	}
	v := &vocab{ranks: r}
	for i := range v.pairs {
		v.pairs[i] = -1
	}
	for tok, rank := range r {
		if len(tok) == 2 {
			v.pairs[int(tok[0])<<8|int(tok[1])] = int32(rank)
		}
	}
	return v
}}

// CountTokens estimates how many tokens text occupies under cl100k_base. The text is split
// into pre-tokens as the encoding's pattern does (a hand-written scanner: the usual regexp
// engine for that pattern backtracks quadratically on long runs of spaces and is slow on
// megabytes), then each pre-token is merged by BPE in bounded parts, so the cost is linear in
// the length of the text. Special-token syntax ("<|endoftext|>") is counted as ordinary text.
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	r := loadVocab.Get()
	if r == nil {
		return (len(text) + 3) / 4
	}
	n := 0
	var parts map[string]int // counts of the parts of long pre-tokens, which often repeat
	for i := 0; i < len(text); {
		end := nextPreToken(text, i)
		if end-i > maxPiece {
			if parts == nil {
				parts = map[string]int{}
			}
			n += countLong(text[i:end], r, parts)
		} else {
			n += bpeCount(text[i:end], r)
		}
		i = end
	}
	return n
}

// WarmTokenizer loads the BPE ranks now (a few hundred milliseconds) so the first
// CountTokens of a task does not pay for it; the daemon may call it in a goroutine at start.
func WarmTokenizer() { loadVocab.Get() }

// countLong counts the tokens of a pre-token longer than maxPiece, in parts of at most
// maxPiece bytes cut at rune boundaries. Cutting can only stop merges, so the count is at
// least the exact one: an estimate that errs on the safe side for the context window. Parts
// already counted (a run of one character repeats the same part) come from seen.
func countLong(p string, r *vocab, seen map[string]int) int {
	n := 0
	for p != "" {
		cut := min(maxPiece, len(p))
		for cut < len(p) && cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		if cut == 0 {
			cut = maxPiece // not UTF-8 at all: any cut will do
		}
		part := p[:cut]
		c, ok := seen[part]
		if !ok {
			c = bpeCount(part, r)
			seen[part] = c
		}
		n += c
		p = p[cut:]
	}
	return n
}

// bpePart is a run of bytes starting at start; rank is the rank of merging it with the next
// part (math.MaxInt when that pair is not in the vocabulary).
type bpePart struct{ start, rank int }

// bpeCount returns how many tokens byte-pair merging leaves of piece (len ≤ maxPiece): the
// pair with the lowest rank is merged until no pair is in the vocabulary.
func bpeCount(piece string, r *vocab) int {
	if len(piece) <= 1 {
		return len(piece)
	}
	if _, ok := r.ranks[piece]; ok {
		return 1
	}
	var buf [maxPiece + 1]bpePart
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i] = bpePart{start: i, rank: math.MaxInt}
	}
	for i := 0; i+1 < len(piece); i++ {
		if rank := r.pairs[int(piece[i])<<8|int(piece[i+1])]; rank >= 0 {
			parts[i].rank = int(rank)
		}
	}
	rankAt := func(i int) int {
		if i+2 < len(parts) {
			if rank, ok := r.ranks[piece[parts[i].start:parts[i+2].start]]; ok {
				return rank
			}
		}
		return math.MaxInt
	}
	for len(parts) > 2 {
		best, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < best {
				best, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		parts[at].rank = rankAt(at)
		if at > 0 {
			parts[at-1].rank = rankAt(at - 1)
		}
	}
	return len(parts) - 1
}
