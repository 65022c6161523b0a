package shellcmd

import (
	"strings"
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
//     may stand for any of them;
//   - "left|right": a pipeline in which a command named left feeds one named right;
//   - anything else with shell punctuation (":(){"): the text with blanks removed, and for
//     an entry declaring a function, any function that calls itself.
//
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
			if commandMatches(c, pattern) {
				return true
			}
		}
		return false
	}
}

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
	short      map[byte]bool
	long       map[string]bool
	positional []string
	wild       bool // some argument is only known at run time
}

// longAliases maps long options to the short letter they equal, per command ("git push"
// for git subcommands).
var longAliases = map[string]map[string]byte{
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

// shortAliases maps short letters to the letter they equal (rm -R is rm -r).
var shortAliases = map[string]map[byte]byte{
	"rm": {'R': 'r'},
	"cp": {'R': 'r'},
}

// longSingleDash are commands whose options are words after a single dash (find -delete).
var longSingleDash = map[string]bool{"find": true}

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
	for b := range want.short {
		if !have.short[b] && !have.wild {
			return false
		}
	}
	for l := range want.long {
		if !have.long[l] && !have.wild {
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
		case strings.HasPrefix(t, "--") || longSingleDash[name]:
			l, _, _ := strings.Cut(t, "=")
			if b, ok := longAliases[key][l]; ok {
				fs.short[b] = true
			} else {
				fs.long[l] = true
			}
		default:
			for i := 1; i < len(t); i++ {
				b := t[i]
				if to, ok := shortAliases[key][b]; ok {
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
