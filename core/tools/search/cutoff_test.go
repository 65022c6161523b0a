package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCapKeepsTheFirstResultsByPath: whatever folders and files the cut lets a search skip,
// a capped search returns exactly the first results of the uncapped one. The tree's names
// sort differently as paths and as folder-by-folder names ("a-b" < "a/x" but "a" < "a-b").
func TestCapKeepsTheFirstResultsByPath(t *testing.T) {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 300))
	names := []string{"a", "a-b", "a.c", "b", "ab", "z"}
	for i := range 160 {
		var dir []string
		for range rng.IntN(4) {
			dir = append(dir, names[rng.IntN(len(names))])
		}
		var b strings.Builder
		for j := range rng.IntN(8) {
			fmt.Fprintf(&b, "line %d\n", j)
			if rng.IntN(3) == 0 {
				b.WriteString("hit here\n")
			}
		}
		p := filepath.Join(root, filepath.Join(dir...), names[rng.IntN(len(names))]+fmt.Sprint(i%7)+".txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := Search(context.Background(), root, Options{Regex: "hit", Context: 1, MaxResults: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total < 60 {
		t.Fatalf("only %d matches: the tree proves little", all.Total)
	}
	for _, limit := range []int{1, 2, 7, 30, all.Total - 1, all.Total} {
		for _, workers := range []int{1, 3, 8} {
			got, err := Search(context.Background(), root, Options{Regex: "hit", Context: 1, MaxResults: limit, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			want := firstResults(all, limit)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("limit %d, %d workers: %d results in %d files, want %d in %d", limit, workers,
					got.Total, len(got.Files), want.Total, len(want.Files))
			}
		}
	}
}

// firstResults cuts an uncapped result to its first n matches, as a capped search reports
// them.
func firstResults(all Results, n int) Results {
	s := &searcher{opts: Options{MaxResults: n}, files: all.Files}
	return s.results()
}
