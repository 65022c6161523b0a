package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/search"
	fswatch "github.com/cairnhq/cairn/core/watch"
	"github.com/cairnhq/cairn/core/workspace"
)

// TestOneFileListForEveryReader checks that the @ index, list_files and the search index of
// a root read the one file list the daemon keeps of it (docs/architecture.md, "Watching
// files"): a file made on disk shows in all three, and leaves all three when removed, while
// the root has one list and every folder one watch.
func TestOneFileListForEveryReader(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for name, content := range map[string]string{"main.go": "package main\n", "sub/util.go": "package sub\n"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hub := fswatch.New()
	t.Cleanup(func() {
		if err := hub.Close(); err != nil {
			t.Error(err)
		}
	})
	lists := workspace.NewLists(hub)
	t.Cleanup(lists.Close)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	at, err := workspace.NewIndex(ctx, ws, lists)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := at.Close(); err != nil {
			t.Error(err)
		}
	})
	indexes := search.NewIndexes(0, lists)
	t.Cleanup(indexes.Close)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := indexes.For(ws.Root()).Wait(wctx); err != nil {
		t.Fatal(err)
	}
	if n := lists.Len(); n != 1 {
		t.Fatalf("%d file lists for one root", n)
	}
	if folders, watches := hub.Folders(), hub.Watches(); folders != 2 || watches != 2 {
		t.Fatalf("%d folders watched by %d watches, want the root and sub watched once each (by the list)", folders, watches)
	}

	// What each reader says of the new file.
	mention := func() bool {
		return slices.ContainsFunc(at.Query("zebrafish", 5), func(m workspace.Match) bool { return m.Rel == "sub/zebrafish.go" })
	}
	listed := func() bool {
		entries, _, err := listfiles.List(ctx, listfiles.Listed{Tree: ws, Lists: lists}, ws.Root(), true, 0)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(entries, "sub/zebrafish.go")
	}
	found := func() bool {
		res, err := search.Search(ctx, ws.Root(), search.Options{Regex: "stripes", Tree: ws, Indexes: indexes})
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(res.Files, func(f search.File) bool { return strings.HasSuffix(f.Path, "zebrafish.go") })
	}
	readers := []struct {
		name string
		has  func() bool
	}{{"the @ index", mention}, {"list_files", listed}, {"search_files", found}}

	newFile := filepath.Join(root, "sub", "zebrafish.go")
	if err := os.WriteFile(newFile, []byte("package sub // stripes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range readers {
		waitFor(t, r.name+" shows the new file", r.has)
	}
	if err := os.Remove(newFile); err != nil {
		t.Fatal(err)
	}
	for _, r := range readers {
		waitFor(t, r.name+" drops the removed file", func() bool { return !r.has() })
	}
	if n := lists.Len(); n != 1 {
		t.Errorf("%d file lists for one root after the changes", n)
	}
}
