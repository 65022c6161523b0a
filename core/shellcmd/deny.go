package shellcmd

import (
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// Hit says why a command line is on the deny list.
type Hit struct {
	// Entry is the deny-list entry that matched; "" when the line is denied because part of
	// it cannot be seen (Reason says which).
	Entry  string
	Reason string
}

// Denied reports whether any part of the line matches an entry of list, or hides what it
// runs. Entries are matched as follows:
//   - "name word -xy --long": a simple command named name (or name.suffix, so "mkfs"
//     covers mkfs.ext4) whose arguments hold the words in order and the flags in any
//     spelling: -rf = -fr = -r -f = -Rf = --recursive --force for rm; for git push every
//     force form (-f, --force, --force-with-lease, +refspec); a word only known at run time
//     may stand for any of them. A long option may be shortened to any prefix the program
//     accepts (`--recu`, `--forc`, `--har`); a prefix that could name several options counts
//     as all of them. `rm -r` without -f matches "rm -rf" too: it removes the same tree and
//     only stops to ask about write-protected files, which a yes piped in answers. The words
//     of a program Cairn does not know to be harmless count as the command they name
//     (`ionice -c3 rm -rf x`, `make rm -rf x`): an unknown wrapper runs what follows;
//   - "left|right": a pipeline in which a command named left feeds one named right;
//   - anything else with shell punctuation (":(){"): the text with blanks removed, and for
//     an entry declaring a function, any function that calls itself.
//
// The commands a git line defines as aliases for itself (`git -c alias.x='!rm -rf v' x`) and
// those behind the wrappers Cairn peels are commands of the line like any other (see Parse).
// Piping anything into a shell is always denied, as is a command whose name, or a script
// whose text, is only known when it runs.
func (s *Script) Denied(list []string) (Hit, bool) {
	for _, entry := range list {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if s.matches(entry) {
			return Hit{Entry: entry, Reason: "matches the deny-list entry " + entry}, true
		}
	}
	if len(s.Opaque) > 0 {
		return Hit{Reason: s.Opaque[0]}, true
	}
	if len(s.ShellPipes) > 0 {
		return Hit{Reason: "output is piped into " + s.ShellPipes[0] + " to be run as a script"}, true
	}
	return Hit{}, false
}

func (s *Script) matches(entry string) bool {
	switch {
	case strings.Contains(entry, "|") && !strings.ContainsAny(entry, "(){};&$`"):
		l, r, _ := strings.Cut(entry, "|")
		return s.pipeMatches(strings.Fields(l), strings.Fields(r))
	case strings.ContainsAny(entry, "(){};&|$`<>"):
		if strings.Contains(entry, "(){") && len(s.Recursive) > 0 {
			return true
		}
		squeezed := strings.Join(strings.Fields(entry), "")
		for _, src := range s.sources {
			if strings.Contains(strings.Join(strings.Fields(src), ""), squeezed) {
				return true
			}
		}
		return false
	default:
		pattern := strings.Fields(entry)
		for _, c := range s.Commands {
			if commandMatches(c, pattern) || unknownRuns(c, pattern) {
				return true
			}
		}
		return false
	}
}

// unknownRuns reports whether a word among the arguments of c names the program of pattern
// and the words after it match the pattern as a command of their own. A program Cairn does
// not know may be a wrapper (ionice, firejail, systemd-run, …) that runs its arguments, so
// they are judged as the command they would be; this denies some harmless lines (`make rm
// -rf x`) and misses none. Programs that only print or search their arguments are exempt,
// as are the wrappers Cairn peels itself, whose inner command is a Command of its own.
func unknownRuns(c Command, pattern []string) bool {
	name := c.Name()
	if name == "" || c.Wrapper || dataArgs.Get()[name] {
		return false
	}
	skip := -1
	if name == "git" {
		// git's own subcommand (git rm, git clean) is matched as git's, not as a program.
		if rest := gitArgs(c.Words[1:]); len(rest) > 0 {
			skip = len(c.Words) - len(rest)
		}
	}
	for i := 1; i < len(c.Words); i++ {
		if i == skip {
			continue
		}
		inner := Command{Words: c.Words[i:], windows: c.windows}
		if n := inner.Name(); n == "" || n != pattern[0] && !strings.HasPrefix(n, pattern[0]+".") {
			continue
		}
		if commandMatches(inner, pattern) {
			return true
		}
	}
	return false
}

// dataArgs are programs whose arguments are text or patterns they print or search for, never
// a command they run.
var dataArgs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"echo": true, "printf": true, "grep": true, "egrep": true,
		"fgrep": true, "rg": true, "ag": true, "man": true, "which": true, "type": true,
		"whatis": true, "apropos": true}
}}

func (s *Script) pipeMatches(left, right []string) bool {
	if len(left) == 0 || len(right) == 0 {
		return false
	}
	in := func(c Command, p pipe, r [2]uint) bool {
		return c.scope == p.scope && c.pos >= r[0] && c.end <= r[1]
	}
	for _, p := range s.pipes {
		l, r := false, false
		for _, c := range s.Commands {
			if in(c, p, p.left) && commandMatches(c, left) {
				l = true
			}
			if in(c, p, p.right) && commandMatches(c, right) {
				r = true
			}
		}
		if l && r {
			return true
		}
	}
	return false
}

// flagSet is a command's arguments sorted for matching.
type flagSet struct {
	short map[byte]bool
	long  map[string]bool
	// prefixes are long options not in the program's known list, which may be any option
	// they begin (a program whose options Cairn does not list may accept abbreviations).
	prefixes   []string
	positional []string
	wild       bool // some argument is only known at run time
}

// longAliases maps long options to the short letter they equal, per command ("git push"
// for git subcommands).
var longAliases = lazy.Value[map[string]map[string]byte]{New: func() map[string]map[string]byte {
	return map[string]map[string]byte{
		"rm":        {"--recursive": 'r', "--force": 'f', "--dir": 'd'},
		"chmod":     {"--recursive": 'R'},
		"chown":     {"--recursive": 'R'},
		"chgrp":     {"--recursive": 'R'},
		"git push":  {"--force": 'f', "--force-with-lease": 'f', "--force-if-includes": 'f', "--delete": 'd', "--mirror": 'f'},
		"git clean": {"--force": 'f'},
		"git reset": {},
		"shred":     {"--remove": 'u'},
		"truncate":  {"--size": 's'},
	}
}}

// knownLongs are the long options of the programs the default deny list names, so that an
// abbreviation is resolved the way the program's option parser resolves it (GNU getopt and
// git both accept any unique prefix). Per key as in longAliases.
var knownLongs = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"rm": {"--force", "--interactive", "--one-file-system", "--no-preserve-root",
			"--preserve-root", "--recursive", "--dir", "--verbose", "--help", "--version"},
		"chmod": {"--changes", "--silent", "--quiet", "--verbose", "--no-preserve-root",
			"--preserve-root", "--reference", "--recursive", "--help", "--version"},
		"chown": {"--changes", "--silent", "--quiet", "--verbose", "--dereference",
			"--no-dereference", "--from", "--no-preserve-root", "--preserve-root", "--reference",
			"--recursive", "--help", "--version"},
		"chgrp": {"--changes", "--silent", "--quiet", "--verbose", "--dereference",
			"--no-dereference", "--no-preserve-root", "--preserve-root", "--reference",
			"--recursive", "--help", "--version"},
		"git push": {"--all", "--branches", "--mirror", "--delete", "--tags", "--follow-tags",
			"--no-follow-tags", "--dry-run", "--porcelain", "--force", "--no-force",
			"--force-with-lease", "--no-force-with-lease", "--force-if-includes",
			"--no-force-if-includes", "--repo", "--set-upstream", "--thin", "--no-thin",
			"--receive-pack", "--exec", "--quiet", "--verbose", "--progress", "--no-progress",
			"--prune", "--no-prune", "--recurse-submodules", "--no-recurse-submodules", "--verify",
			"--no-verify", "--signed", "--no-signed", "--atomic", "--no-atomic", "--push-option",
			"--ipv4", "--ipv6"},
		"git reset": {"--soft", "--mixed", "--hard", "--merge", "--keep", "--quiet", "--no-quiet",
			"--refresh", "--no-refresh", "--patch", "--intent-to-add", "--recurse-submodules",
			"--no-recurse-submodules", "--pathspec-from-file", "--pathspec-file-nul"},
		"git clean": {"--force", "--dry-run", "--quiet", "--interactive", "--exclude"},
		"shred": {"--force", "--iterations", "--random-source", "--size", "--remove", "--verbose",
			"--exact", "--zero", "--help", "--version"},
		"truncate": {"--no-create", "--io-blocks", "--reference", "--size", "--help", "--version"},
	}
}}

// expandLong returns the long options that l (without its =value) may stand for in key: the
// option itself when the program has it, else every known option it begins, else l alone.
func expandLong(key, l string) []string {
	known, ok := knownLongs.Get()[key]
	if !ok {
		return []string{l}
	}
	if slices.Contains(known, l) {
		return []string{l}
	}
	var out []string
	for _, k := range known {
		if len(l) > 2 && strings.HasPrefix(k, l) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return []string{l}
	}
	return out
}

// shortAliases maps short letters to the letter they equal (rm -R is rm -r).
var shortAliases = lazy.Value[map[string]map[byte]byte]{New: func() map[string]map[byte]byte {
	return map[string]map[byte]byte{
		"rm": {'R': 'r'},
		"cp": {'R': 'r'},
	}
}}

// longSingleDash are commands whose options are words after a single dash (find -delete).
var longSingleDash = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"find": true}
}}

func commandMatches(c Command, pattern []string) bool {
	name := c.Name()
	if name == "" || len(pattern) == 0 {
		return false
	}
	if name != pattern[0] && !strings.HasPrefix(name, pattern[0]+".") {
		return false
	}
	key, args := name, c.Words[1:]
	pat := pattern[1:]
	if name == "git" {
		args = gitArgs(args)
		if len(pat) > 0 && !strings.HasPrefix(pat[0], "-") {
			if len(args) == 0 || (!args[0].Dynamic && args[0].Text != pat[0]) {
				return false
			}
			key = "git " + pat[0]
			args, pat = args[1:], pat[1:]
		}
	}
	have := sortArgs(key, args)
	want := sortArgs(key, wordsFromText(pat))
	if key == "rm" && have.short['r'] {
		// rm -r removes the tree as rm -rf does (see Denied).
		have.short['f'] = true
	}
	for b := range want.short {
		if !have.short[b] && !have.wild {
			return false
		}
	}
	for l := range want.long {
		if !have.long[l] && !have.wild && !prefixOf(have.prefixes, l) {
			return false
		}
	}
	next := 0
	for _, p := range want.positional {
		found := have.wild
		for next < len(have.positional) && !found {
			found = have.positional[next] == p
			next++
		}
		if !found {
			return false
		}
	}
	return true
}

func wordsFromText(ts []string) []Word {
	out := make([]Word, len(ts))
	for i, t := range ts {
		out[i] = Word{Text: t}
	}
	return out
}

func sortArgs(key string, args []Word) flagSet {
	fs := flagSet{short: map[byte]bool{}, long: map[string]bool{}}
	name, _, _ := strings.Cut(key, " ")
	ended := false
	for _, a := range args {
		t := a.Text
		switch {
		case a.Dynamic:
			fs.wild = true
		case ended || len(t) < 2 || t[0] != '-':
			if key == "git push" && strings.HasPrefix(t, "+") {
				fs.short['f'] = true
			}
			fs.positional = append(fs.positional, t)
		case t == "--":
			ended = true
		case strings.HasPrefix(t, "--") || longSingleDash.Get()[name]:
			l, _, _ := strings.Cut(t, "=")
			if _, listed := knownLongs.Get()[key]; !listed && strings.HasPrefix(l, "--") && len(l) > 2 {
				fs.prefixes = append(fs.prefixes, l)
			}
			for _, o := range expandLong(key, l) {
				if b, ok := longAliases.Get()[key][o]; ok {
					fs.short[b] = true
				} else {
					fs.long[o] = true
				}
			}
		default:
			for i := 1; i < len(t); i++ {
				b := t[i]
				if to, ok := shortAliases.Get()[key][b]; ok {
					b = to
				}
				fs.short[b] = true
			}
		}
	}
	return fs
}

// gitArgs drops git's global options (-C dir, -c k=v, --no-pager, …) so the subcommand
// comes first.
func gitArgs(args []Word) []Word {
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case args[i].Dynamic:
			return args[i:]
		case t == "-C" || t == "-c" || t == "--git-dir" || t == "--work-tree" || t == "--namespace":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return args[i:]
		}
	}
	return nil
}

// prefixOf reports whether one of prefixes begins the long option l.
func prefixOf(prefixes []string, l string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
