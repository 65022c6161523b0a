package workspace

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

// TestWalkTakesFoldersInNameOrder: with one worker the walk is depth first with folders in
// name order, which lets search_files stop early once it holds its first results by path.
func TestWalkTakesFoldersInNameOrder(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, dir := range []string{"b", "a/z", "a/c", "a-b", "c", "a/c/d"} {
		files[dir+"/f.txt"] = "x"
	}
	writeTree(t, root, files)
	ws := newWS(t, root)
	var order []string
	err := ws.Walk(context.Background(), root, SearchOptions, 1, func(_ string, _ fs.DirEntry, parent *Filter) error {
		rel, _ := filepath.Rel(root, parent.Dir())
		if rel = filepath.ToSlash(rel); len(order) == 0 || order[len(order)-1] != rel {
			order = append(order, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "a", "a/c", "a/c/d", "a/z", "a-b", "b", "c"}
	if !slices.Equal(order, want) {
		t.Errorf("folders read in order %q, want %q", order, want)
	}
}
