package workspace

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// User ignore files at a root, read in this order (later patterns win).
var userIgnoreFiles = []string{".clineignore", ".cairnignore"}

// includeDirective pulls another file's patterns into a user ignore file (Cline's syntax).
const includeDirective = "!include "

// rules is an ordered pattern list with git's precedence: the last matching pattern decides.
type rules []rule

// rule is one pattern plus a literal every path it matches must hold within one component:
// most paths fail that substring check, which is far cheaper than the glob match.
type rule struct {
	p      gitignore.Pattern
	needle string // "" when the pattern has no usable literal
}

func newRule(line string, domain []string) rule {
	return rule{p: gitignore.ParsePattern(line, domain), needle: patternLiteral(line)}
}

// Match is the pattern's verdict, skipping the glob when the literal is absent.
func (r rule) Match(path []string, isDir bool) gitignore.MatchResult {
	if r.needle != "" && !slices.ContainsFunc(path, func(c string) bool { return strings.Contains(c, r.needle) }) {
		return gitignore.NoMatch
	}
	return r.p.Match(path, isDir)
}

// patternLiteral returns the longest run of plain characters in one segment of a gitignore
// pattern, which any matching path holds inside one of its components. Patterns with escapes
// get none, to keep the reasoning simple.
func patternLiteral(line string) string {
	line = strings.TrimSpace(line)
	if strings.ContainsRune(line, '\\') {
		return ""
	}
	line = strings.TrimPrefix(line, "!")
	best, start := "", 0
	flush := func(end int) {
		if end-start > len(best) {
			best = line[start:end]
		}
	}
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '*', '?', '/':
			flush(i)
			start = i + 1
		case '[':
			flush(i)
			j := strings.IndexByte(line[i+1:], ']')
			if j < 0 {
				return "" // malformed class: let the library decide
			}
			i += j + 1
			start = i + 1
		}
	}
	flush(len(line))
	return best
}

// match reports whether path (components below the rules' base) is excluded.
func (rs rules) match(path []string, isDir bool) bool {
	for i := len(rs) - 1; i >= 0; i-- {
		switch rs[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// without returns the rules minus every pattern that excludes the folder path.
func (rs rules) without(path []string) rules {
	var out rules
	for _, p := range rs {
		if p.Match(path, true) != gitignore.Exclude {
			out = append(out, p)
		}
	}
	return out
}

// parseRules parses gitignore-syntax text; domain is the folder holding the file, as
// components below the walk base, so a nested file's patterns apply only beneath it.
func parseRules(data []byte, domain []string) rules {
	var out rules
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, newRule(line, domain))
	}
	return out
}

// fileStamp fingerprints one file for reload checks; a missing file has the zero stamp.
type fileStamp struct {
	mod  time.Time
	size int64
	ok   bool
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{mod: st.ModTime(), size: st.Size(), ok: true}
}

// userRules is one loaded generation of a root's user ignore rules.
type userRules struct {
	rules  rules
	active bool // some user ignore file exists
	// stamps covers every file read, includes too, so an edit to an included file reloads.
	stamps map[string]fileStamp
}

func (u *userRules) match(path []string, isDir bool) bool {
	if u == nil || !u.active {
		return false
	}
	if len(path) == 1 {
		for _, n := range userIgnoreFiles {
			if path[0] == n {
				return true
			}
		}
	}
	return u.rules.match(path, isDir)
}

// userIgnore holds a root's .clineignore/.cairnignore rules and reloads them when any file
// they were built from changes (an mtime/size check on access: a few stats, no watcher).
type userIgnore struct {
	root string
	// mu guards cur.
	mu  sync.Mutex
	cur *userRules
}

func newUserIgnore(root string) *userIgnore { return &userIgnore{root: root} }

// current returns the up-to-date rules, reloading them if a source file changed.
func (u *userIgnore) current() *userRules {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cur != nil && !u.cur.stale() {
		return u.cur
	}
	u.cur = loadUserRules(u.root)
	return u.cur
}

func (u *userRules) stale() bool {
	for p, s := range u.stamps {
		if stampOf(p) != s {
			return true
		}
	}
	return false
}

func loadUserRules(root string) *userRules {
	r := &userRules{stamps: map[string]fileStamp{}}
	seen := map[string]bool{}
	var load func(path string)
	load = func(path string) {
		if seen[path] {
			return // an include cycle
		}
		seen[path] = true
		r.stamps[path] = stampOf(path)
		data, err := readRuleFile(path)
		if err != nil {
			return
		}
		var plain []byte
		for _, line := range strings.Split(string(data), "\n") {
			if inc, ok := strings.CutPrefix(strings.TrimSpace(line), includeDirective); ok {
				r.rules = append(r.rules, parseRules(plain, nil)...)
				plain = nil
				inc = strings.TrimSpace(inc)
				if !filepath.IsAbs(inc) {
					inc = filepath.Join(root, inc)
				}
				load(filepath.Clean(inc))
				continue
			}
			plain = append(append(plain, line...), '\n')
		}
		r.rules = append(r.rules, parseRules(plain, nil)...)
	}
	for _, n := range userIgnoreFiles {
		p := filepath.Join(root, n)
		if _, err := os.Stat(p); err == nil {
			r.active = true
		}
		load(p)
	}
	return r
}
