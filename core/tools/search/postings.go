package search

import (
	"encoding/binary"
	"maps"
	"math/bits"
	"slices"
)

// The postings of an index: for each trigram, the ids of the files holding it, ascending.
// They are most of the index's memory, which is meant to stay within a quarter of the source
// bytes it covers (docs/performance.md, "P11"), so they are kept compact: almost all of them
// frozen in one byte arena kept outside the collected heap (arena_unix.go), the trigrams in a
// sorted array beside it, and each trigram's ids in the smaller of two forms: varint-coded
// gaps (about a byte an id) or, for a trigram held by more than an eighth of the files its ids
// span, a bitmap over that span (a bit a file). Ids added since the
// last freeze wait in a small map of growing gap lists, which the store folds into a new arena
// once they are many; ids only grow, so every waiting id is above every frozen one of its
// trigram and folding in appends.

// Forms of a frozen trigram's ids; its bytes start with the form.
const (
	formGaps byte = iota // uvarint gaps, the first from 0
	formBits             // uvarint w, then 64-bit little-endian words whose bit i is id w*64+i
)

// minFold is the count of waiting ids below which the store never folds them in (a variable
// so a test sees folds on a small corpus).
var minFold = 1 << 18

// postingStore is an index's postings. Not safe for concurrent use: Index.mu guards it.
type postingStore struct {
	keys  []uint32 // frozen trigrams, ascending
	offs  []int    // keys[i]'s bytes are the arena's [offs[i]:offs[i+1]] (len(keys)+1 of them)
	last  []uint32 // keys[i]'s largest id
	count []uint32 // keys[i]'s ids
	arena *arena   // nil until the first freeze
	// frozen counts the ids in the arena.
	frozen int
	// recent holds the ids added since the last freeze, by trigram; nrecent counts them.
	recent  map[uint32]*postings
	nrecent int
	ids     []uint32 // ids decoded while folding
	buf     []byte   // one trigram's bytes while folding
}

// add records that file id holds the trigrams tris; id is above every id added before.
func (s *postingStore) add(id uint32, tris []uint32) {
	if s.recent == nil {
		s.recent = map[uint32]*postings{}
	}
	for _, t := range tris {
		p := s.recent[t]
		if p == nil {
			p = &postings{}
			s.recent[t] = p
		}
		p.add(id)
	}
	s.nrecent += len(tris)
	if s.nrecent >= max(s.frozen/4, minFold) {
		s.freeze()
	}
}

// mark sets the bit of every id holding trigram t in set, which covers every id added.
func (s *postingStore) mark(t uint32, set []uint64) {
	if i, ok := slices.BinarySearch(s.keys, t); ok {
		markFrozen(s.arena.bytes()[s.offs[i]:s.offs[i+1]], set)
	}
	if p := s.recent[t]; p != nil {
		p.mark(set)
	}
}

// freeze folds the waiting ids into a new arena sized to fit.
func (s *postingStore) freeze() {
	if len(s.recent) == 0 {
		return
	}
	rk := slices.Sorted(maps.Keys(s.recent))
	var data []byte
	if s.arena != nil {
		data = s.arena.bytes()
	}
	n := len(s.keys)
	for _, t := range rk {
		if _, ok := slices.BinarySearch(s.keys, t); !ok {
			n++
		}
	}
	keys, offs := make([]uint32, 0, n), make([]int, 1, n+1)
	last, count := make([]uint32, 0, n), make([]uint32, 0, n)
	reserve := len(data) + 8*len(rk)
	for _, p := range s.recent {
		reserve += len(p.b)
	}
	out := newArena(reserve + reserve/8)
	for i, j := 0, 0; i < len(s.keys) || j < len(rk); {
		var (
			t             uint32
			old           []byte // the frozen bytes of t, if any
			oldLast, oldN uint32
			p             *postings // its waiting ids, if any
		)
		switch {
		case j == len(rk) || i < len(s.keys) && s.keys[i] < rk[j]:
			t = s.keys[i]
		default:
			t = rk[j]
		}
		if i < len(s.keys) && s.keys[i] == t {
			old, oldLast, oldN = data[s.offs[i]:s.offs[i+1]], s.last[i], s.count[i]
			i++
		}
		newLast, newN := oldLast, oldN
		if j < len(rk) && rk[j] == t {
			p = s.recent[t]
			newLast, newN = p.last, oldN+uint32(p.n)
			j++
		}
		if p == nil {
			out.append(old)
		} else {
			s.buf = s.appendFolded(s.buf[:0], old, oldLast, oldN, p)
			out.append(s.buf)
		}
		keys, last, count = append(keys, t), append(last, newLast), append(count, newN)
		offs = append(offs, len(out.bytes()))
	}
	if s.arena != nil {
		s.arena.free()
	}
	s.keys, s.offs, s.last, s.count, s.arena = keys, offs, last, count, out
	s.frozen += s.nrecent
	s.recent, s.nrecent = nil, 0
	if cap(s.ids) > 1<<16 {
		s.ids = nil
	}
	if cap(s.buf) > 1<<16 {
		s.buf = nil
	}
}

// appendFolded appends one trigram's frozen bytes: its old frozen ids (old, possibly none,
// whose largest is oldLast) followed by its waiting ids p, in the smaller form.
func (s *postingStore) appendFolded(dst, old []byte, oldLast, oldN uint32, p *postings) []byte {
	first := firstID(old)
	pFirst, k := binary.Uvarint(p.b)
	if len(old) == 0 {
		first = uint32(pFirst)
	}
	n := int(oldN) + p.n
	asBits := useBits(first, p.last, n)
	switch {
	case len(old) == 0 && !asBits:
		dst = append(dst, formGaps)
		return append(dst, p.b...)
	case len(old) > 0 && old[0] == formGaps && !asBits:
		dst = append(dst, old...)
		dst = binary.AppendUvarint(dst, pFirst-uint64(oldLast))
		return append(dst, p.b[k:]...)
	case len(old) > 0 && old[0] == formBits && asBits:
		w0, _ := binary.Uvarint(old[1:])
		start := len(dst)
		dst = append(dst, old...)
		dst = append(dst, make([]byte, 8*(int(p.last/64)-int(oldLast/64)))...)
		setBits(dst[start:], w0, p)
		return dst
	}
	// The form changes (or a new trigram starts as a bitmap): decode and encode.
	ids := decodeFrozen(old, s.ids[:0])
	ids = p.appendIDs(ids)
	s.ids = ids
	if asBits {
		return appendBits(dst, ids)
	}
	dst = append(dst, formGaps)
	prev := uint32(0)
	for _, id := range ids {
		dst = binary.AppendUvarint(dst, uint64(id-prev))
		prev = id
	}
	return dst
}

// useBits reports whether n ids from first to last take fewer bytes as a bitmap than as gaps,
// counting a gap as a byte (its least).
func useBits(first, last uint32, n int) bool {
	return 8*(int(last/64)-int(first/64)+1) < n
}

// firstID returns the smallest id of frozen bytes b (0 when b is empty).
func firstID(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	v, k := binary.Uvarint(b[1:])
	if b[0] == formGaps {
		return uint32(v)
	}
	for j := 1 + k; j < len(b); j++ {
		if b[j] != 0 {
			return uint32(v)*64 + uint32(8*(j-1-k)) + uint32(bits.TrailingZeros8(b[j]))
		}
	}
	return uint32(v) * 64
}

// setBits sets the bit of each of p's ids in the bitmap b (form byte, uvarint w0, words).
func setBits(b []byte, w0 uint64, p *postings) {
	_, k := binary.Uvarint(b[1:])
	words := b[1+k:]
	p.each(func(id uint32) {
		r := uint64(id) - w0*64
		words[r/8] |= 1 << (r % 8)
	})
}

// appendBits appends ids (ascending, at least one) in the bitmap form.
func appendBits(dst []byte, ids []uint32) []byte {
	w0 := ids[0] / 64
	dst = append(dst, formBits)
	dst = binary.AppendUvarint(dst, uint64(w0))
	start := len(dst)
	dst = append(dst, make([]byte, 8*(int(ids[len(ids)-1]/64)-int(w0)+1))...)
	for _, id := range ids {
		r := id - w0*64
		dst[start+int(r/8)] |= 1 << (r % 8)
	}
	return dst
}

// decodeFrozen appends the ids of frozen bytes b to ids.
func decodeFrozen(b []byte, ids []uint32) []uint32 {
	if len(b) == 0 {
		return ids
	}
	switch b[0] {
	case formGaps:
		id := uint32(0)
		for b := b[1:]; len(b) > 0; {
			d, k := binary.Uvarint(b)
			b = b[k:]
			id += uint32(d)
			ids = append(ids, id)
		}
	case formBits:
		w0, k := binary.Uvarint(b[1:])
		for j, c := range b[1+k:] {
			for ; c != 0; c &= c - 1 {
				ids = append(ids, uint32(w0*64)+uint32(8*j+bits.TrailingZeros8(c)))
			}
		}
	}
	return ids
}

// markFrozen sets the bit of every id of frozen bytes b in set.
func markFrozen(b []byte, set []uint64) {
	if len(b) == 0 {
		return
	}
	switch b[0] {
	case formGaps:
		markGaps(b[1:], 0, set)
	case formBits:
		w0, k := binary.Uvarint(b[1:])
		dst := set[w0:]
		for j, words := 0, b[1+k:]; len(words) >= 8; j, words = j+1, words[8:] {
			dst[j] |= binary.LittleEndian.Uint64(words)
		}
	}
}

// markGaps sets the bit of every id of the gaps b, the first counted from id, in set.
func markGaps(b []byte, id uint32, set []uint64) {
	for len(b) > 0 {
		d, k := binary.Uvarint(b)
		b = b[k:]
		id += uint32(d)
		set[id/64] |= 1 << (id % 64)
	}
}

// postings are the ids added to one trigram since the last freeze, ascending, as varint
// gaps (the first from 0).
type postings struct {
	b    []byte
	last uint32 // the last id added
	n    int    // ids held
}

func (p *postings) add(id uint32) {
	p.b = binary.AppendUvarint(p.b, uint64(id-p.last))
	p.last = id
	p.n++
}

// mark sets the bit of every id in set.
func (p *postings) mark(set []uint64) { markGaps(p.b, 0, set) }

// each calls fn with every id, ascending.
func (p *postings) each(fn func(uint32)) {
	id := uint32(0)
	for b := p.b; len(b) > 0; {
		d, k := binary.Uvarint(b)
		b = b[k:]
		id += uint32(d)
		fn(id)
	}
}

// appendIDs appends every id to ids.
func (p *postings) appendIDs(ids []uint32) []uint32 {
	p.each(func(id uint32) { ids = append(ids, id) })
	return ids
}

// postingBytes returns the bytes the index's postings hold outside the collected heap (the
// arena), which heap statistics do not show.
func (ix *Index) postingBytes() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.post.arena == nil {
		return 0
	}
	return len(ix.post.arena.bytes())
}
