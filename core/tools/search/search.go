// Package search is the search_files tool: a pure-Go, ripgrep-compatible regex search over
// the workspace (parallel walk, literal prefilter, RE2) with Cline's result format. In the
// daemon a trigram index per workspace root (index.go) lets a search read only the files
// that can match; what it finds is the same.
package search

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/cairnhq/cairn/core/workspace"
)

// Limits of one search (Cline's numbers).
const (
	DefaultMaxResults = 300
	MaxOutputBytes    = 256 * 1024 // 0.25 MB
	// binarySniff is how much of a file is checked for a NUL byte.
	binarySniff = 8 * 1024
	// minBuf is the smallest read buffer: most source files fit it in one read.
	minBuf = 64 * 1024
)

// Walker is the part of the workspace a search needs.
type Walker interface {
	Walk(ctx context.Context, dir string, opts workspace.FilterOptions, workers int, fn workspace.WalkFunc) error
}

// Options configure Search.
type Options struct {
	Regex string // RE2 syntax
	// FilePattern is a glob: without "/" it matches file names, with "/" paths relative to
	// the searched folder; "!" in front excludes instead. Empty means every file.
	FilePattern string
	MaxResults  int // matching lines kept; 0 means DefaultMaxResults
	// Context lines each side of a match; nil-equivalent 0 is honoured, so the tool sets 1.
	Context int
	// Workers walking and reading in parallel; 0 means 4×GOMAXPROCS: reads block in the
	// kernel, and extra goroutines keep both cores busy meanwhile (measured on GOROOT/src).
	Workers int
	// Tree supplies ignore-aware walking; nil builds a workspace rooted at the searched path.
	Tree Walker
	// Indexes, when set, lets a search of a folder skip the files the index of its workspace
	// root rules out (built on first need; until it is ready the search scans). Results are
	// the same either way.
	Indexes *Indexes
}

// Line is one line of output.
type Line struct {
	Num     int // 1-based
	Text    string
	IsMatch bool
}

// File holds one file's matches with their context, lines ascending; Groups splits them
// where the context is not contiguous.
type File struct {
	Path    string // absolute
	Groups  [][]Line
	Matches int
}

// Results of a search, files sorted by path.
type Results struct {
	Files []File
	Total int  // matching lines kept (≤ MaxResults)
	More  bool // matches beyond MaxResults were left out
}

// Search searches root (a folder or one file) for opts.Regex with ripgrep's default filters:
// .gitignore (nested), .ignore, hidden entries and binary files skipped, plus the user
// ignore file. Output is deterministic: the first MaxResults matches in path order.
func Search(ctx context.Context, root string, opts Options) (Results, error) {
	re, err := regexp.Compile("(?m)" + opts.Regex)
	if err != nil {
		return Results{}, fmt.Errorf("%w: %v", ErrBadRegex, err)
	}
	if opts.FilePattern != "" {
		if !doublestar.ValidatePattern(strings.TrimPrefix(opts.FilePattern, "!")) {
			return Results{}, fmt.Errorf("%w: %q", ErrBadGlob, opts.FilePattern)
		}
	}
	if opts.MaxResults <= 0 {
		opts.MaxResults = DefaultMaxResults
	}
	if opts.Workers <= 0 {
		opts.Workers = 4 * runtime.GOMAXPROCS(0)
	}
	s := &searcher{re: re, lit: requiredLiteral(opts.Regex), opts: opts, root: root}

	st, err := os.Stat(root)
	if err != nil {
		return Results{}, fmt.Errorf("search %s: %w", root, err)
	}
	if !st.IsDir() {
		// An explicit file is searched whatever the filters say, as ripgrep does.
		s.searchFile(root)
		return s.results(), nil
	}
	tree := opts.Tree
	if tree == nil {
		ws, err := workspace.New(root)
		if err != nil {
			return Results{}, fmt.Errorf("search %s: %w", root, err)
		}
		tree = ws
	}
	var cand *candidates
	if opts.Indexes != nil && opts.Tree != nil {
		cand = opts.Indexes.covering(tree, root).plan(planQuery(opts.Regex))
	}
	if cand != nil && opts.FilePattern == "" && root == cand.ix.root {
		// The whole root, unchanged since the index's last walk: read its candidates only.
		if paths, ok := cand.listed(ctx); ok {
			s.searchAll(ctx, paths, opts.Workers)
			if err := ctx.Err(); err != nil {
				return Results{}, fmt.Errorf("search %s: %w", root, err)
			}
			return s.results(), nil
		}
	}
	wopts := workspace.SearchOptions
	if opts.FilePattern != "" {
		wopts.Override = s.override
	}
	err = tree.Walk(ctx, root, wopts, opts.Workers, func(path string, d fs.DirEntry, _ *workspace.Filter) error {
		if s.pastCutoff(path) {
			// Everything under a folder past the cut sorts after it too: not even listed.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // folders are walked, symlinks not followed (ripgrep's default)
		}
		if cand != nil && !cand.wants(path, d) {
			return nil // its trigrams rule a match out
		}
		s.searchFile(path)
		return nil
	})
	if err != nil {
		return Results{}, fmt.Errorf("search %s: %w", root, err)
	}
	return s.results(), nil
}

// searchAll searches the given files (in path order) with workers goroutines, skipping those
// past the cut as the walk does.
func (s *searcher) searchAll(ctx context.Context, paths []string, workers int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(paths)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(paths) || s.pastCutoff(paths[i]) {
					return // the rest sorts after the cut too
				}
				s.searchFile(paths[i])
			}
		})
	}
	wg.Wait()
}

type searcher struct {
	re   *regexp.Regexp
	lit  *finder
	opts Options
	root string
	bufs sync.Pool

	// mu guards files, kept and cutoff.
	mu     sync.Mutex
	files  []File
	kept   int    // matches in files
	cutoff string // once set, files after this path cannot make the first MaxResults
}

// override applies the file pattern the way ripgrep applies --glob: a file matching a
// pattern is searched even if ignore rules or hiding would skip it; with a positive pattern
// other files are not searched; a "!" pattern excludes what it matches. Folders are only
// decided when a positive pattern names them.
func (s *searcher) override(dir, name string, isDir bool) workspace.Verdict {
	pat := s.opts.FilePattern
	neg := strings.HasPrefix(pat, "!")
	pat = strings.TrimPrefix(pat, "!")
	subject := name
	if strings.Contains(pat, "/") {
		rel, err := filepath.Rel(s.root, filepath.Join(dir, name))
		if err != nil {
			return workspace.Undecided
		}
		subject = filepath.ToSlash(rel)
	}
	ok, _ := doublestar.Match(pat, subject)
	switch {
	case ok && neg:
		return workspace.Exclude
	case ok:
		return workspace.Include
	case !neg && !isDir:
		return workspace.Exclude
	}
	return workspace.Undecided
}

func (s *searcher) pastCutoff(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cutoff != "" && path > s.cutoff
}

// searchFile reads path into a pooled buffer and records its matches.
func (s *searcher) searchFile(path string) {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, minBuf)
		bp = &b
	}
	defer s.bufs.Put(bp)
	data, err := readInto(path, *bp)
	if err != nil {
		return // vanished or unreadable: skipped, as ripgrep does after a warning
	}
	*bp = data[:0]
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return
	}
	nums := s.matchLines(data)
	if len(nums) == 0 {
		return
	}
	s.add(File{Path: path, Groups: groups(data, nums, s.opts.Context), Matches: len(nums)})
}

// matchLines returns the 0-based start offsets of the lines that hold a match, ascending,
// at most MaxResults+1 of them.
func (s *searcher) matchLines(data []byte) []int {
	var starts []int
	limit := s.opts.MaxResults + 1
	pos := 0
	for pos < len(data) && len(starts) < limit {
		var ls, le int // the candidate line span [ls, le)
		if s.lit != nil {
			i := s.lit.index(data[pos:])
			if i < 0 {
				break
			}
			ls, le = lineBounds(data, pos+i, pos+i)
			if !s.lit.pure && !s.re.Match(data[ls:le]) {
				pos = le + 1
				continue
			}
			starts = append(starts, ls)
			pos = le + 1
			continue
		}
		// No literal: find the leftmost match in the rest of the buffer, then check each line
		// it touches on its own, since ripgrep's matches never span lines.
		loc := s.re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		ls, le = lineBounds(data, pos+loc[0], pos+max(loc[1]-1, loc[0]))
		for l := ls; l <= le && len(starts) < limit; {
			e := l + lineEnd(data[l:])
			if s.re.Match(data[l:e]) {
				starts = append(starts, l)
			}
			l = e + 1
		}
		pos = le + 1
		if pos <= ls { // an empty match at the very end
			break
		}
	}
	return starts
}

// lineBounds returns the start of the line holding a and the end (position of '\n' or len)
// of the line holding b.
func lineBounds(data []byte, a, b int) (int, int) {
	ls := bytes.LastIndexByte(data[:a], '\n') + 1
	return ls, b + lineEnd(data[b:])
}

func lineEnd(b []byte) int {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return i
	}
	return len(b)
}

// groups turns matching line starts into runs of lines with ctx lines of context each side;
// runs whose context touches merge, as in ripgrep's output. Line numbers come from counting
// newlines (vectorised); only the lines shown are cut out of data.
func groups(data []byte, starts []int, ctx int) [][]Line {
	type span struct{ first, last, off int } // off: where line first starts
	var spans []span
	nums := make([]int, len(starts))
	num, pos := 1, 0
	for i, st := range starts {
		num += bytes.Count(data[pos:st], []byte{'\n'})
		pos = st
		nums[i] = num
		first, last := max(1, num-ctx), num+ctx
		if len(spans) > 0 && first <= spans[len(spans)-1].last+1 {
			spans[len(spans)-1].last = last
			continue
		}
		spans = append(spans, span{first, last, linesBack(data, st, num-first)})
	}
	out := make([][]Line, 0, len(spans))
	m := 0 // the first entry of nums not below the line at hand
	for _, sp := range spans {
		var g []Line
		for n, off := sp.first, sp.off; n <= sp.last && off < len(data); n++ {
			e := off + lineEnd(data[off:])
			for m < len(nums) && nums[m] < n {
				m++
			}
			g = append(g, Line{Num: n, Text: string(bytes.TrimRight(data[off:e], "\r")), IsMatch: m < len(nums) && nums[m] == n})
			off = e + 1
		}
		out = append(out, g)
	}
	return out
}

// linesBack returns the start of the line k lines before the line starting at off.
func linesBack(data []byte, off, k int) int {
	for ; k > 0 && off > 0; k-- {
		off = bytes.LastIndexByte(data[:off-1], '\n') + 1
	}
	return off
}

// add records a file's matches; as soon as more than MaxResults are held, it keeps only the
// files that can still be in the first MaxResults by path and remembers the cut, so later
// files and folders beyond it are not even read. Cutting at once (rather than after twice
// as many, to sort less often) matters because the walk runs roughly in path order: every
// match held beyond the first MaxResults stands for files read in vain (on GOROOT/src a
// third fewer files read for `func main`, a seventh fewer for `(?i)deadline`).
func (s *searcher) add(f File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cutoff != "" && f.Path > s.cutoff {
		return
	}
	s.files = append(s.files, f)
	s.kept += f.Matches
	if s.kept <= s.opts.MaxResults {
		return
	}
	slices.SortFunc(s.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	n := 0
	for i, x := range s.files {
		n += x.Matches
		if n > s.opts.MaxResults {
			s.cutoff = x.Path
			s.files = s.files[:i+1]
			s.kept = n
			return
		}
	}
}

func (s *searcher) results() Results {
	s.mu.Lock()
	defer s.mu.Unlock()
	files := slices.Clone(s.files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var r Results
	for _, f := range files {
		if r.Total+f.Matches > s.opts.MaxResults {
			f = trimFile(f, s.opts.MaxResults-r.Total)
			r.More = true
		}
		if f.Matches == 0 {
			break
		}
		r.Files = append(r.Files, f)
		r.Total += f.Matches
		if r.More {
			break
		}
	}
	return r
}

// trimFile keeps the first n matches of f and the context around them.
func trimFile(f File, n int) File {
	out := File{Path: f.Path}
	for _, g := range f.Groups {
		var kept []Line
		for i, l := range g {
			if l.IsMatch {
				if out.Matches == n {
					// The line after the last kept match stays as its context.
					if i > 0 && len(kept) > 0 && kept[len(kept)-1].IsMatch {
						kept = append(kept, Line{Num: l.Num, Text: l.Text})
					}
					break
				}
				out.Matches++
			}
			kept = append(kept, l)
		}
		if len(kept) > 0 {
			out.Groups = append(out.Groups, kept)
		}
		if out.Matches == n {
			break
		}
	}
	return out
}
