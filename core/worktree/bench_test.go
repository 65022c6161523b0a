package worktree

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkList measures one board refresh (List) of a worktree of a 5,000-file repository
// with a few changed files: the snapshot of the worktree into a copy of its index and the
// numstat against the base.
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	files := map[string]string{}
	for i := range 5000 {
		files[fmt.Sprintf("pkg%02d/file%04d.txt", i%50, i)] = fmt.Sprintf("line %d\n", i)
	}
	r := repo(b, files)
	m := New(b.TempDir())
	w, err := m.Create(ctx, r, "bench", "1-a", false)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		write(b, filepath.Join(w.Path, fmt.Sprintf("pkg00/file%04d.txt", i*50)), "changed\n")
	}
	b.ResetTimer()
	for b.Loop() {
		list, err := m.List(ctx, r)
		if err != nil || len(list) != 1 || list[0].Stats.Files != 5 {
			b.Fatalf("list %+v %v", list, err)
		}
	}
}
