package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/workspace"
)

// foldOften makes the postings fold their waiting ids into a new arena every few files, so a
// small corpus goes through many folds and both forms.
func foldOften(t *testing.T, n int) {
	old := minFold
	minFold = n
	t.Cleanup(func() { minFold = old })
}

// TestPostingStoreRoundTrip adds generated ids to a store and checks, before and after folds,
// that every trigram gives back exactly the ids added: dense trigrams (bitmaps), sparse ones
// (gaps), and ones whose density changes so their form does.
func TestPostingStoreRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name  string
		first uint32 // the first id (ids go on after a rebuild)
		files int
		fold  int
	}{
		{"from zero", 0, 3000, 200},
		{"after a rebuild", 100_003, 3000, 200},
		{"rare folds", 7, 5000, 20000},
		{"fold every file", 64, 400, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			foldOften(t, c.fold)
			rng := rand.New(rand.NewPCG(uint64(c.first), uint64(c.files)))
			// Each trigram's chance to be in a file, as a function of the file's rank.
			densities := []func(i int) float64{
				func(int) float64 { return 0.95 },
				func(int) float64 { return 0.5 },
				func(int) float64 { return 0.15 },
				func(int) float64 { return 0.02 },
				func(int) float64 { return 0.001 },
				func(i int) float64 { return map[bool]float64{true: 0.9, false: 0.001}[i < c.files/3] }, // dense, then rare
				func(i int) float64 { return map[bool]float64{true: 0.001, false: 0.9}[i < c.files/3] }, // rare, then dense
				func(i int) float64 { return map[bool]float64{true: 0.7, false: 0}[i%1000 < 50] },       // bursts
			}
			const perDensity = 12
			want := map[uint32][]uint32{}
			var s postingStore
			for i := range c.files {
				id := c.first + uint32(i)
				var tris []uint32
				for d, f := range densities {
					for k := range perDensity {
						if rng.Float64() < f(i) {
							tris = append(tris, uint32(d*perDensity+k)*7919+1)
						}
					}
				}
				s.add(id, tris)
				for _, tri := range tris {
					want[tri] = append(want[tri], id)
				}
				if i%997 == 0 || i == c.files-1 {
					checkStore(t, &s, want, c.first+uint32(i)+1)
				}
			}
			s.freeze()
			checkStore(t, &s, want, c.first+uint32(c.files))
			forms := map[byte]int{}
			for i, tri := range s.keys {
				b := s.arena.bytes()[s.offs[i]:s.offs[i+1]]
				forms[b[0]]++
				if got := decodeFrozen(b, nil); !slices.Equal(got, want[tri]) {
					t.Errorf("trigram %d decodes to %d ids, want %d", tri, len(got), len(want[tri]))
				}
				if s.last[i] != want[tri][len(want[tri])-1] || int(s.count[i]) != len(want[tri]) {
					t.Errorf("trigram %d: last %d count %d, want %d and %d", tri, s.last[i], s.count[i], want[tri][len(want[tri])-1], len(want[tri]))
				}
			}
			if len(s.keys) != len(want) || forms[formBits] == 0 || forms[formGaps] == 0 {
				t.Errorf("%d trigrams frozen (want %d), forms %v: both forms should occur", len(s.keys), len(want), forms)
			}
		})
	}
}

// checkStore checks that marking each trigram of want (and one never added) sets exactly its
// ids and keeps the bits set before, n being the ids given out so far.
func checkStore(t *testing.T, s *postingStore, want map[uint32][]uint32, n uint32) {
	t.Helper()
	words := (int(n) + 63) / 64
	for tri, ids := range want {
		// Marking adds to the bits already set (a query ORs trigrams into one set).
		got := make([]uint64, words)
		for i := range got {
			got[i] = uint64(tri) * 0x9e3779b97f4a7c15 >> (i % 64)
		}
		exp := slices.Clone(got)
		s.mark(tri, got)
		for _, id := range ids {
			exp[id/64] |= 1 << (id % 64)
		}
		if !slices.Equal(got, exp) {
			t.Fatalf("trigram %d: marked ids differ from the %d added", tri, len(ids))
		}
	}
	none := make([]uint64, words)
	s.mark(2, none)
	if slices.ContainsFunc(none, func(w uint64) bool { return w != 0 }) {
		t.Fatal("a trigram never added marks ids")
	}
}

// TestIndexPostingsMatchBruteForce builds an index over a generated corpus, folding often,
// and checks it against a brute-force reading of the files: each trigram's postings are
// exactly the files holding it, every file a regex matches is a candidate, and the indexed
// search equals the scan. It checks again after files are rewritten and added, whose
// postings wait in the store until a fold.
func TestIndexPostingsMatchBruteForce(t *testing.T) {
	foldOften(t, 500)
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	words := []string{"the", "func", "return", "deadline", "Handler", "error", "ErrTimeout", "nil",
		"context", "zebra", "quux", "x86_64", "TODO", "café", "kelvin", "Skip", "okapi"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			switch rng.IntN(4) {
			case 0: // rare letters make rare trigrams
				for range 3 + rng.IntN(4) {
					b.WriteByte(byte('a' + rng.IntN(26)))
				}
			default: // common words make dense ones, some in most files
				b.WriteString(words[min(rng.IntN(len(words)), rng.IntN(len(words)))])
			}
			b.WriteString([]string{" ", "\n", "(", ") "}[rng.IntN(4)])
		}
		return b.String()
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 600 {
		write(fmt.Sprintf("d%d/f%03d.txt", i%9, i), gen(1+rng.IntN(300)))
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	idx := testIndexes(t, 0)
	ix := ready(t, idx, ws.Root())
	exprs := []string{`deadline`, `(?i)DEADLINE`, `func \w+\(`, `Err[A-Z]\w+`, `zebra|okapi`,
		`(?i)café`, `x86_\d+`, `return nil`, `the\s+func`, `TODO`, `ka?lv`}
	check := func(when string) {
		t.Helper()
		ix.mu.RLock()
		files := textFiles(ix.files)
		n := ix.next
		ix.mu.RUnlock()
		// Brute force: which ids hold each trigram, from the files' bytes.
		holders := map[uint32][]uint32{}
		contents := map[string][]byte{}
		for _, f := range files {
			data, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			contents[f.path] = data
			for _, tri := range fileTrigrams(data) {
				holders[tri] = append(holders[tri], f.id)
			}
		}
		ix.mu.RLock()
		for tri, ids := range holders {
			got := make([]uint64, (n+63)/64)
			ix.post.mark(tri, got)
			for _, id := range ids {
				if got[id/64]&(1<<(id%64)) == 0 {
					t.Errorf("%s: trigram %06x misses file %d", when, tri, id)
				}
				got[id/64] &^= 1 << (id % 64)
			}
			// What remains must be ids of no current file: versions since replaced.
			for _, f := range files {
				if got[f.id/64]&(1<<(f.id%64)) != 0 {
					t.Errorf("%s: trigram %06x lists %s, which does not hold it", when, tri, f.path)
				}
			}
		}
		ix.mu.RUnlock()
		for _, expr := range exprs {
			re := regexp.MustCompile("(?m)" + expr)
			c := ix.plan(planQuery(expr))
			if c == nil {
				t.Fatalf("%s: %s does not narrow", when, expr)
			}
			for _, f := range files {
				if re.Match(contents[f.path]) && c.bits[f.id/64]&(1<<(f.id%64)) == 0 {
					t.Errorf("%s: %s matches %s, which is no candidate", when, expr, f.path)
				}
			}
			opts := Options{Regex: expr, Context: 1, Tree: ws}
			scan, err := Search(context.Background(), ws.Root(), opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Indexes = idx
			got, err := Search(context.Background(), ws.Root(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, scan) {
				t.Errorf("%s: %s: indexed search differs from the scan", when, expr)
			}
		}
	}
	check("built")
	if ix.post.arena == nil || len(ix.post.recent) != 0 {
		t.Fatal("the build did not end frozen")
	}
	for i := range 40 {
		write(fmt.Sprintf("d%d/f%03d.txt", i%9, i*13), gen(1+rng.IntN(300)))
		write(fmt.Sprintf("new/n%02d.txt", i), gen(1+rng.IntN(300)))
	}
	// A search indexes the changed and new files on the spot.
	if _, err := Search(context.Background(), ws.Root(), Options{Regex: `deadline`, Tree: ws, Indexes: idx}); err != nil {
		t.Fatal(err)
	}
	settle(t, ix)
	for !ix.refreshing.CompareAndSwap(false, true) {
		runtime.Gosched()
	}
	if runtime.GOOS != "linux" {
		// Where the file list cannot tell it is current, a search walks rather than waits for
		// the index, and starts no refresh: refresh here, so the postings can be checked.
		ix.refresh(context.Background())
	}
	ix.refreshing.Store(false)
	check("changed")
}

// indexedFile is one file of an index, for the brute-force check.
type indexedFile struct {
	path string
	id   uint32
}

// textFiles returns the text files of an index.
func textFiles(files map[string]entry) []indexedFile {
	var out []indexedFile
	for p, e := range files {
		if e.kind == kindText {
			out = append(out, indexedFile{p, e.id})
		}
	}
	return out
}

// An arena that grows keeps what was written before it grew.
func TestArenaGrowsWithItsBytes(t *testing.T) {
	a := newArena(16)
	defer a.free()
	var want []byte
	for i := range 100_000 {
		p := []byte{byte(i), byte(i >> 8), byte(i >> 16)}
		a.append(p)
		want = append(want, p...)
	}
	if !bytes.Equal(a.bytes(), want) {
		t.Fatalf("after growing, the arena holds %d bytes that differ from the %d written", len(a.bytes()), len(want))
	}
}
