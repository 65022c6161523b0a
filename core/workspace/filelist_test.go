package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestListsReaderIsCurrent checks that a listing of a held root reads the list, which has
// every change made before the Reader call (no polling), and that a folder outside any held
// root is read from the disk.
func TestListsReaderIsCurrent(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.go": "", "sub/b.go": "", ".gitignore": "gen/\n", "gen/x.go": ""})
	writeTree(t, other, map[string]string{"c.go": ""})
	lists := testLists(t)
	fl, err := lists.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Release()
	if !fl.Complete() {
		t.Skip("no fsnotify watcher on this system")
	}
	if _, err := fl.Sync(context.Background()); errors.Is(err, ErrUnwatched) {
		t.Skip("checked with Sync, which needs a system that orders its events")
	}
	names := func(dir string) (got []string, fromList bool) {
		read, done := lists.Reader(context.Background(), dir)
		defer done()
		des, err := read(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range des {
			_, fromList = d.(*entry)
			got = append(got, d.Name())
		}
		return got, fromList
	}
	for i := range 20 {
		name := filepath.Join(root, "sub", "new"+string(rune('a'+i))+".go")
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got, fromList := names(filepath.Join(root, "sub"))
		if !fromList || !slices.Contains(got, filepath.Base(name)) {
			t.Fatalf("after writing %s: %v (from the list: %v)", name, got, fromList)
		}
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
		if got, _ := names(filepath.Join(root, "sub")); slices.Contains(got, filepath.Base(name)) {
			t.Fatalf("after removing %s: %v", name, got)
		}
	}
	// A folder no view descends into (gitignored) and a root nobody holds: the disk.
	if got, fromList := names(filepath.Join(root, "gen")); fromList || !slices.Equal(got, []string{"x.go"}) {
		t.Errorf("gen: %v (from the list: %v)", got, fromList)
	}
	if got, fromList := names(other); fromList || !slices.Equal(got, []string{"c.go"}) {
		t.Errorf("other root: %v (from the list: %v)", got, fromList)
	}
	// Every entry of a folder the list reads, hidden and ignored ones too, as os.ReadDir.
	got, _ := names(root)
	if want := []string{".gitignore", "a.go", "gen", "sub"}; !slices.Equal(got, want) {
		t.Errorf("root: %v, want %v", got, want)
	}
}

// TestSearchViewWorkedOutLater checks the view a list works out when first asked (Files) against
// a walk with its rules: ripgrep's .ignore and hidden rules, nested ignore files, and a folder
// only that view descends into (build/), which the list then reads and keeps current too.
func TestSearchViewWorkedOutLater(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore": "gen/\n*.log\n", ".ignore": "skip.go\n", ".hidden.go": "", ".cfg/c.go": "",
		"a.go": "", "skip.go": "", "app.log": "", "gen/g.go": "", "build/b.go": "", "build/deep/d.go": "",
		"build/.ignore": "deep/\n", "sub/.gitignore": "!keep.log\nx.go\n", "sub/x.go": "", "sub/keep.log": "", "sub/y.go": "",
	})
	ws, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	files := func(opts FilterOptions) []string {
		var out []string
		// One worker: the callback is not called concurrently.
		err := ws.Walk(context.Background(), root, opts, 1, func(path string, d fs.DirEntry, _ *Filter) error {
			if d.Type().IsRegular() {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	lists := testLists(t)
	fl, err := lists.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Release()
	if got, want := fl.Files(t.Context(), ListView), files(ListOptions); !slices.Equal(got, want) {
		t.Errorf("ListView: %v\nwant %v", got, want)
	}
	if got, want := fl.Files(t.Context(), SearchView), files(SearchOptions); !slices.Equal(got, want) {
		t.Errorf("SearchView: %v\nwant %v", got, want)
	}
	if !slices.Contains(fl.Files(t.Context(), SearchView), filepath.Join(root, "build", "b.go")) {
		t.Fatal("SearchView lacks build/b.go")
	}
	if !fl.Complete() {
		t.Skip("no fsnotify watcher on this system")
	}
	// The folder only the search view reads is watched: a file made there shows.
	made := filepath.Join(root, "build", "new.go")
	if err := os.WriteFile(made, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fl.Sync(context.Background()); errors.Is(err, ErrUnwatched) {
		t.Skip("the rest is checked with Sync, which needs a system that orders its events")
	} else if err != nil {
		t.Fatal(err)
	}
	if got := fl.Files(t.Context(), SearchView); !slices.Contains(got, made) || !slices.Equal(got, files(SearchOptions)) {
		t.Errorf("after writing build/new.go: %v", got)
	}
	if slices.Contains(fl.Files(t.Context(), ListView), made) {
		t.Error("ListView shows build/new.go")
	}
}
