package workspace

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// HiddenMode says what a walk does with dot-named entries.
type HiddenMode int

// Hidden entry handling.
const (
	ShowHidden     HiddenMode = iota
	SkipHiddenDirs            // list_files: dot folders skipped, dot files listed
	SkipHidden                // ripgrep's default: every dot entry skipped
)

// FilterOptions selects the rules a walk applies.
type FilterOptions struct {
	GitIgnore   bool // nested .gitignore files
	DotIgnore   bool // ripgrep's .ignore files
	Hidden      HiddenMode
	DefaultDirs bool // skip DefaultSkipDirs
	UserIgnore  bool // .clineignore/.cairnignore
	// Override, when set, decides an entry before the other rules, as ripgrep's --glob does:
	// Include keeps what the rules would hide, Exclude drops it, Undecided defers to the
	// rules. The user ignore file applies whatever it says.
	Override func(dir, name string, isDir bool) Verdict
}

// Verdict is an Override's decision.
type Verdict int

// Override decisions.
const (
	Undecided Verdict = iota
	Include
	Exclude
)

// ListOptions are the rules of list_files and the environment-details file list.
var ListOptions = FilterOptions{GitIgnore: true, Hidden: SkipHiddenDirs, DefaultDirs: true, UserIgnore: true}

// SearchOptions are ripgrep's default filters plus the user ignore file (search_files). The
// build folder list does not apply: a package named build is source.
var SearchOptions = FilterOptions{GitIgnore: true, DotIgnore: true, Hidden: SkipHidden, UserIgnore: true}

// IndexOptions are the rules of the @-autocomplete index: what list_files would show.
var IndexOptions = ListOptions

// DefaultSkipDirs are build, dependency and tool folders that listings never descend into.
var DefaultSkipDirs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"node_modules": true, "__pycache__": true, "venv": true, ".venv": true, "env": true,
		"target": true, "dist": true, "out": true, "build": true, "bundle": true, "vendor": true,
		"tmp": true, "temp": true, "deps": true, "Pods": true, ".git": true,
	}
}}

// Filter is the ignore state of one folder during a walk. It is immutable; Child derives the
// state of a subfolder, reading that folder's ignore files.
type Filter struct {
	dir  string
	rel  []string // dir's components below the base (the root holding dir, else dir itself)
	opts FilterOptions
	git  rules
	user *userRules
}

// NewFilter returns the filter for dir (absolute, resolved). Inside a root, ignore files of
// every folder from the root down to dir apply, as with git and ripgrep.
func (ws *Workspace) NewFilter(dir string, opts FilterOptions) *Filter {
	dir = filepath.Clean(dir)
	f := &Filter{dir: dir, opts: opts}
	base := dir
	if r := ws.rootOf(dir); r != nil {
		base = r.Path
		if opts.UserIgnore {
			f.user = r.user.current()
		}
	}
	if rel, _ := filepath.Rel(base, dir); rel != "." {
		f.rel = strings.Split(filepath.ToSlash(rel), "/")
	}
	cur := base
	f.git = f.readRules(cur, nil)
	for i := range f.rel {
		// A folder the caller named explicitly is walked even if an ancestor's rules ignore
		// it (as ripgrep does for a path given on its command line): rules from above it
		// would otherwise hide its whole content.
		if f.git.match(f.rel[:i+1], true) {
			f.git = f.git.without(f.rel[:i+1])
		}
		cur = filepath.Join(cur, f.rel[i])
		f.git = append(f.git, f.readRules(cur, f.rel[:i+1])...)
	}
	return f
}

// Dir returns the folder this filter describes.
func (f *Filter) Dir() string { return f.dir }

// maxRuleFile bounds an ignore file. Real ones are kilobytes; the bound only stops a FIFO or a
// device named .gitignore (or an `!include /dev/zero`) from stalling or exhausting a walk.
const maxRuleFile = 8 << 20

// readRuleFile reads an ignore file if it is a regular file of at most maxRuleFile bytes.
func readRuleFile(path string) ([]byte, error) {
	return ReadRegular(context.Background(), path, maxRuleFile)
}

func (f *Filter) readRules(dir string, domain []string) rules {
	return f.readRulesOf(dir, domain, func(string) bool { return true })
}

// readRulesOf is readRules where has says which files dir may hold (an ignore file it does
// not hold is not looked for).
func (f *Filter) readRulesOf(dir string, domain []string, has func(name string) bool) rules {
	var out rules
	if f.opts.GitIgnore && has(".gitignore") {
		if data, err := readRuleFile(filepath.Join(dir, ".gitignore")); err == nil {
			out = append(out, parseRules(data, domain)...)
		}
	}
	if f.opts.DotIgnore && has(".ignore") {
		if data, err := readRuleFile(filepath.Join(dir, ".ignore")); err == nil {
			out = append(out, parseRules(data, domain)...)
		}
	}
	return out
}

// Skip reports whether the entry name (a direct child of the filter's folder) is filtered out.
func (f *Filter) Skip(name string, isDir bool) bool {
	if f.opts.Override != nil {
		switch f.opts.Override(f.dir, name, isDir) {
		case Exclude:
			return true
		case Include:
			return f.UserIgnored(name, isDir)
		}
	}
	if name[0] == '.' {
		if f.opts.Hidden == SkipHidden || (isDir && f.opts.Hidden == SkipHiddenDirs) {
			return true
		}
	}
	if isDir && f.opts.DefaultDirs && DefaultSkipDirs.Get()[name] {
		return true
	}
	if len(f.git) == 0 && (f.user == nil || !f.user.active) {
		return false
	}
	path := make([]string, len(f.rel)+1)
	copy(path, f.rel)
	path[len(f.rel)] = name
	return f.git.match(path, isDir) || f.user.match(path, isDir)
}

// UserIgnored reports whether only the user ignore file hides the entry; list_files uses it to
// tell a blocked path from a merely uninteresting one.
func (f *Filter) UserIgnored(name string, isDir bool) bool {
	path := append(append([]string(nil), f.rel...), name)
	return f.user.match(path, isDir)
}

// Child returns the filter of subfolder name.
func (f *Filter) Child(name string) *Filter {
	return f.childOf(name, func(string) bool { return true })
}

// childOf is Child for a subfolder whose entries the caller has read: has says which names it
// holds, so an ignore file it does not hold is not looked for.
func (f *Filter) childOf(name string, has func(name string) bool) *Filter {
	rel := make([]string, len(f.rel)+1)
	copy(rel, f.rel)
	rel[len(f.rel)] = name
	c := &Filter{dir: filepath.Join(f.dir, name), rel: rel, opts: f.opts, git: f.git, user: f.user}
	if extra := c.readRulesOf(c.dir, rel, has); len(extra) > 0 {
		// Full slice expression: siblings must never share a backing array.
		c.git = append(f.git[:len(f.git):len(f.git)], extra...)
	}
	return c
}
