package search

import (
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
	"time"

	"github.com/cairnhq/cairn/core/watch"

	"github.com/cairnhq/cairn/core/workspace"
)

// TestPlanIsNecessary checks the planner's one promise on generated text: whenever a regex
// matches a text, the text's trigrams satisfy the regex's query. The texts mix the
// patterns' letters in both cases with the runes Unicode folding treats specially.
func TestPlanIsNecessary(t *testing.T) {
	exprs := []string{
		`deadline`, `(?i)deadline`, `(?i)SKIP`, `(?i)kelvin`, `Dead(line|lock)`, `dead[lL]ine`,
		`(?i)dead[lL]ine`, `a[bc]d[ef]g`, `ab+c`, `(ab)*cd`, `x?yz`, `abc|de`, `[a-z]{3}`,
		`\bdead\w+`, `^line$`, `(?i)ſkip`, `café`, `(?i)CAFÉ`, `a.c`, `abc\nxyz`, `(?:ab|cd)(?:ef|gh)`,
		`[^a]bc`, `a{2,}bc`, `K`, `(?i)k`, ``, `a|`, `abc?de`, `(?i)colou?r`, `ab(cd)?ef`, `x{0,1}yz`, `(a|b|c|d|e|f|g|h|i)(j|k|l|m|n|o|p|q|r)(s|t|u|v|w|x|y|z)`,
	}
	alphabet := []string{"a", "b", "c", "d", "e", "f", "g", "h", "l", "i", "n", "k", "K", "s", "S",
		"L", "D", "E", "\u212a", "\u017f", "é", "É", "x", "y", "z", "\n", " ", "r", "v", "o", "p", "w"}
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for _, expr := range exprs {
		re := regexp.MustCompile("(?m)" + expr)
		q := planQuery(expr)
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			text := b.String()
			if rng.IntN(3) == 0 {
				text += literalOf(expr)
			}
			if !re.MatchString(text) {
				continue
			}
			checked++
			tris := fileTrigrams([]byte(text))
			if !q.holds(func(x uint32) bool { _, ok := slices.BinarySearch(tris, x); return ok }) {
				t.Errorf("%s matches %q but its query rules the text out", expr, text)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d matching texts generated", checked)
	}
}

// literalOf gives a text the regex probably matches, so matches are common in the check.
func literalOf(expr string) string {
	r := strings.NewReplacer("(?i)", "", "\\b", "", "\\w+", "x", "^", "", "$", "", "\\n", "\n", "[lL]", "l", "+", "", "?", "", "*", "", "(", "", ")", "", "|", "")
	return r.Replace(expr)
}

// TestPlanNarrows checks the planner finds the conditions the index lives on.
func TestPlanNarrows(t *testing.T) {
	for _, c := range []struct {
		expr string
		all  bool
	}{
		{`func main`, false}, {`(?i)deadline`, false}, {`dead[lL]ine`, false}, {`foo\s+bar`, false},
		{`Dead(line|lock)`, false}, {`ab`, true}, {`.*`, true}, {`[a-z]+`, true}, {`x?`, true},
		// Optional parts join the literals around them (Russ Cox's analysis): each piece alone
		// is too short to narrow.
		{`ab?cd?ef`, false}, {`ab(?:c)?de`, false},
	} {
		if got := planQuery(c.expr).op == qAll; got != c.all {
			t.Errorf("%s: cannot narrow = %v, want %v", c.expr, got, c.all)
		}
	}
	// Only files holding both words' trigrams can match.
	q := planQuery(`foo\s+bar`)
	has := func(s string) func(uint32) bool {
		tris := fileTrigrams([]byte(s))
		return func(x uint32) bool { _, ok := slices.BinarySearch(tris, x); return ok }
	}
	if q.holds(has("foo only")) || !q.holds(has("BAR and FOO")) {
		t.Error("foo\\s+bar: wrong condition")
	}
}

// writeIndexCorpus adds to writeCorpus a few hundred generated files: words drawn so that
// literals, classes and folded queries hit some files and not others, a name that is not
// UTF-8, binaries, and ignore files.
func writeIndexCorpus(t testing.TB, root string) {
	t.Helper()
	writeCorpus(t, root)
	words := []string{"alpha", "Beta", "GAMMA", "delta", "deadline", "DeadLock", "kelvin", "café",
		"skip", "func main", "errOr", "needle", "haystack", "foo  bar", "foobar", "x86_64", "TODO"}
	rng := rand.New(rand.NewPCG(5, 6))
	write := func(name, content string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		var b strings.Builder
		for l := range 1 + rng.IntN(30) {
			fmt.Fprintf(&b, "line %d:", l)
			for range rng.IntN(5) {
				b.WriteString(" " + words[rng.IntN(len(words))])
			}
			b.WriteString("\n")
		}
		ext := []string{".go", ".ts", ".md", ".txt"}[i%4]
		write(fmt.Sprintf("gen/d%d/f%03d%s", i%7, i, ext), b.String())
	}
	write("gen/.ignore", "d6/\n")
	write("gen/d1/.gitignore", "*.txt\n")
	write("gen/blob.bin", "needle\x00haystack")
	write("gen/many.txt", strings.Repeat("needle needle\n", 400))
	if runtime.GOOS != "windows" {
		write("gen/caf\xe9.go", "needle in a latin-1 name\n")
	}
}

// indexQueries cover literals, classes, folded case, alternations, file patterns and the cap.
var indexQueries = []Options{
	{Regex: `func main`}, {Regex: `deadline`}, {Regex: `(?i)deadline`}, {Regex: `(?i)KELVIN`},
	{Regex: `Dead(line|Lock)`}, {Regex: `d[ea]lta`}, {Regex: `foo\s+bar`}, {Regex: `x86_\d+`},
	{Regex: `(?i)café`}, {Regex: `needle`}, {Regex: `needle`, MaxResults: 7}, {Regex: `haystack`},
	{Regex: `GAMMA`, FilePattern: `*.go`}, {Regex: `GAMMA`, FilePattern: `!*.md`},
	{Regex: `(?i)todo`, FilePattern: `gen/**/*.txt`}, {Regex: `ERROR`, FilePattern: `*.log`},
	{Regex: `func main`, FilePattern: `skip_me.go`}, {Regex: `zzz_nothing`}, {Regex: `[0-9]+:`},
	{Regex: `^line 2: alpha`}, {Regex: `Beta$`}, {Regex: `(?i)skip`}, {Regex: `error`},
}

// TestIndexedSearchMatchesScan checks the promise of the index: for every query, the
// search that uses the ready index returns exactly what the scan returns, and the index
// does narrow most of them.
func TestIndexedSearchMatchesScan(t *testing.T) {
	root := t.TempDir()
	writeIndexCorpus(t, root)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	idx := testIndexes(t, 0)
	ready(t, idx, ws.Root())
	narrowed := 0
	for _, q := range indexQueries {
		q.Context = 1
		q.Tree = ws
		scan, err := Search(context.Background(), ws.Root(), q)
		if err != nil {
			t.Fatal(err)
		}
		q.Indexes = idx
		got, err := Search(context.Background(), ws.Root(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, scan) {
			t.Errorf("%+v: indexed search differs from the scan:\n%s\nscan:\n%s", q, got.Format(ws.Rel), scan.Format(ws.Rel))
		}
		if idx.For(ws.Root()).plan(planQuery(q.Regex)) != nil {
			narrowed++
		}
		if got.Total == 0 && q.Regex != `zzz_nothing` {
			t.Errorf("%s: no results; the corpus should hold some", q.Regex)
		}
	}
	if runtime.GOOS == "linux" {
		// Nothing changed since the build: the searches of the root read the index's list.
		if fast := idx.For(ws.Root()).fast.Load(); fast < int64(len(indexQueries)/2) {
			t.Errorf("only %d searches used the unchanged tree's list", fast)
		}
	}
	if narrowed < len(indexQueries)-3 {
		t.Errorf("the index narrowed only %d of %d queries", narrowed, len(indexQueries))
	}
}

// settle waits until the index's list is current again after a change (a refresh runs in
// the background), so the next search goes by the watch rather than a walk. Without a watch
// (not Linux) there is nothing to wait for.
func settle(t *testing.T, ix *Index) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ix.unchanged(context.Background()) {
		if time.Now().After(deadline) {
			t.Fatal("the index's list never became current")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ready(t *testing.T, idx *Indexes, root string) *Index {
	t.Helper()
	ix := idx.For(root)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ix.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestIndexFollowsTheDisk checks that what changed on disk after the build is what the next
// search sees: a changed file's new words are found and its old ones gone, a new file is
// found, a deleted one and one turned binary are not.
func TestIndexFollowsTheDisk(t *testing.T) {
	root := t.TempDir()
	writeIndexCorpus(t, root)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	idx := testIndexes(t, 0)
	ix := ready(t, idx, ws.Root())
	search := func(re string) string {
		t.Helper()
		res, err := Search(context.Background(), ws.Root(), Options{Regex: re, Context: 1, Tree: ws, Indexes: idx})
		if err != nil {
			t.Fatal(err)
		}
		scan, err := Search(context.Background(), ws.Root(), Options{Regex: re, Context: 1, Tree: ws})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res, scan) {
			t.Errorf("%s: indexed search differs from the scan", re)
		}
		return res.Format(ws.Rel)
	}
	write := func(name, content string) {
		t.Helper()
		settle(t, ix) // the change must be seen by the watch, not by a walk already due
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pkg/errs/timeout.go", "package errs\n\nfunc Brandnew() {}\n")
	if got := search(`Brandnew`); !strings.Contains(got, "pkg/errs/timeout.go") {
		t.Errorf("changed file not found:\n%s", got)
	}
	if got := search(`NewTimeoutError\(s`); strings.Contains(got, "timeout.go") {
		t.Errorf("changed file still found by its old text:\n%s", got)
	}
	write("gen/fresh.go", "a zebrafish appears\n")
	if got := search(`(?i)ZEBRAFISH`); !strings.Contains(got, "gen/fresh.go") {
		t.Errorf("new file not found:\n%s", got)
	}
	settle(t, ix)
	if err := os.Remove(filepath.Join(root, "gen/fresh.go")); err != nil {
		t.Fatal(err)
	}
	if got := search(`zebrafish`); strings.Contains(got, "fresh.go") {
		t.Errorf("deleted file found:\n%s", got)
	}
	settle(t, ix)
	if err := os.MkdirAll(filepath.Join(root, "newdir/deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("newdir/deeper/n.go", "an okapi\n")
	if got := search(`okapi`); !strings.Contains(got, "newdir/deeper/n.go") {
		t.Errorf("file in a new folder not found:\n%s", got)
	}
	write("newdir/deeper/n.go", "an okapi again\n")
	if got := search(`okapi again`); !strings.Contains(got, "newdir/deeper/n.go") {
		t.Errorf("file changed in a new folder not found:\n%s", got)
	}
	write(".ignore", "skip_me.go\nsrc/\n")
	if got := search(`func main`); strings.Contains(got, "src/a/b/c/deep.go") {
		t.Errorf("a folder newly ignored is still searched:\n%s", got)
	}
	write("docs/notes.txt", "TODO\x00now binary\n")
	if got := search(`TODO`); strings.Contains(got, "docs/notes.txt") {
		t.Errorf("file turned binary still searched:\n%s", got)
	}
}

// TestIndexDroppedWhenIdle checks an index unused for the idle time is dropped and a later
// search builds a new one.
func TestIndexDroppedWhenIdle(t *testing.T) {
	root := t.TempDir()
	writeCorpus(t, root)
	idx := testIndexes(t, 50*time.Millisecond)
	first := ready(t, idx, root)
	deadline := time.Now().Add(5 * time.Second)
	for {
		idx.mu.Lock()
		n := len(idx.m)
		idx.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("idle index not dropped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if again := ready(t, idx, root); again == first {
		t.Error("the dropped index came back")
	}
}

// TestIndexRebuildsWhenMostlyGarbage checks that files rewritten again and again do not
// grow the index without bound: once the postings of replaced versions outweigh the live
// ones, a refresh starts over, and searches still equal the scan.
func TestIndexRebuildsWhenMostlyGarbage(t *testing.T) {
	old := rebuildMin
	rebuildMin = 0
	t.Cleanup(func() { rebuildMin = old })
	root := t.TempDir()
	writeCorpus(t, root)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	idx := testIndexes(t, 0)
	ix := ready(t, idx, ws.Root())
	_, _, live, _ := ix.Stats()
	name := filepath.Join(root, "src/many.go")
	for i := range 40 {
		content := strings.Repeat(fmt.Sprintf("round %d of many distinct words: w%dx w%dy w%dz\n", i, i, i*7, i*13), 20)
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := Options{Regex: fmt.Sprintf(`w%dx`, i), Context: 1, Tree: ws}
		scan, err := Search(context.Background(), ws.Root(), opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Indexes = idx
		got, err := Search(context.Background(), ws.Root(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, scan) || got.Total != 20 {
			t.Fatalf("round %d: indexed %d results, scan %d", i, got.Total, scan.Total)
		}
	}
	settle(t, ix)
	for deadline := time.Now().Add(30 * time.Second); ix.refreshing.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the refresh never ended")
		}
	}
	if err := ix.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix.mu.RLock()
	total, garbage := ix.total, ix.garbage
	ix.mu.RUnlock()
	if garbage > total-garbage || total > 4*live {
		t.Errorf("after 40 rewrites: %d postings, %d garbage (%d live after the build)", total, garbage, live)
	}
}

// testIndexes returns indexes whose file lists watch through a hub of their own; all are
// closed, the indexes first and the hub last, when the test ends.
func testIndexes(tb testing.TB, idle time.Duration) *Indexes {
	hub := watch.New()
	tb.Cleanup(func() {
		if err := hub.Close(); err != nil {
			tb.Error(err)
		}
	})
	lists := workspace.NewLists(hub)
	tb.Cleanup(lists.Close)
	idx := NewIndexes(idle, lists)
	tb.Cleanup(idx.Close)
	return idx
}
