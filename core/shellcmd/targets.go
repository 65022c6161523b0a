package shellcmd

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// Target is a file that a line would create, change or remove.
type Target struct {
	Operand
	// Tree is set when the command acts on everything below the path when it is a folder
	// (rm -r, chmod -R, chown -R): removing "sub" removes "sub/.git" too.
	Tree bool
	// LinkTo is set for a link that ln makes at Path: what the link will lead to. For a
	// symbolic link its Dir is the link's own folder (a relative link target is resolved
	// from there; with ln -r from the command's folder); for a hard link, the command's
	// folder. Writing through the link writes there, so making it is judged like a write
	// there.
	LinkTo *Operand

	// xargs names the command (as written) that xargs completes at run time, when the path
	// stands for the file names xargs reads.
	xargs string
}

// Targets lists the files the line writes: redirection targets, and the operands of the
// common commands that create, change or remove files — tee; the destination of cp, mv,
// install and ln (and the file each source becomes inside a destination folder); chmod,
// chown and chgrp; rm, rmdir, unlink, touch, mkdir, truncate and shred; dd of=; sed -i and
// perl -i; time -o; git config, which writes .git/config whatever the key; git remote add, rename,
// remove and set-url, which write .git/config too; and git init --template, which copies a
// template's hooks and config into .git.
//
// It is a best effort, like Reads: a word only known at run time is left out (UnknownWrites
// reports it), and programs that write files their own way (a Python script, make, npm) are
// not seen.
func (s *Script) Targets() []Target {
	all := s.allTargets()
	kept := all[:0]
	for _, t := range all {
		if !t.Path.Dynamic && t.Path.Text != "" && t.Path.Text != "-" {
			kept = append(kept, t)
		}
	}
	return kept
}

// allTargets is Targets with the targets only known at run time kept.
func (s *Script) allTargets() []Target {
	out := make([]Target, 0, len(s.writes))
	for _, o := range s.writes {
		out = append(out, Target{Operand: o})
	}
	for _, c := range s.Commands {
		if len(c.Words) == 0 || c.Wrapper && c.Name() != "script" && c.Name() != "time" {
			continue
		}
		args, shown := c.Words[1:], ""
		if c.xargs {
			args, shown = xargsArgs(c)
		}
		targets := commandTargets(c.Name(), args)
		if c.xargs && len(targets) > 0 {
			// Whatever xargs reads may become any of the command's operands.
			targets = append(targets, Target{Operand: Operand{Path: Word{Dynamic: true}}})
		}
		for _, t := range targets {
			t.Dir = joinDir(c.Dir, t.Dir)
			t.DirUnknown = t.DirUnknown || c.DirUnknown && !path.IsAbs(t.Dir)
			if t.LinkTo != nil {
				to := *t.LinkTo
				to.Dir = joinDir(t.Dir, to.Dir)
				to.DirUnknown = t.DirUnknown && !path.IsAbs(to.Dir)
				t.LinkTo = &to
			}
			if t.Path.Dynamic {
				t.xargs = shown
			}
			out = append(out, t)
		}
	}
	return out
}

// xargsArgs returns the arguments of a command that xargs runs as they will be when it runs:
// with -I, each word holding the replace string is only known then; otherwise a word only
// known then is appended. shown is the command as the user wrote it.
func xargsArgs(c Command) (args []Word, shown string) {
	parts := make([]string, len(c.Words))
	for i, w := range c.Words {
		parts[i] = w.Shown()
	}
	shown = "xargs " + strings.Join(parts, " ")
	args = slices.Clone(c.Words[1:])
	if c.xargsRepl == "" {
		return append(args, Word{Dynamic: true}), shown
	}
	for i, a := range args {
		if strings.Contains(a.Text, c.xargsRepl) {
			args[i].Dynamic = true
		}
	}
	return args, shown
}

// UnknownWrites says, in words for the user, which writes of the line go to a file that is
// not known before the line runs, each with the path as written: a redirection or writing
// command whose path is computed (`> $d/hooks/p`); a relative path after a cd that went
// somewhere only known then; the file names xargs hands to a writing command (`xargs cp
// a.txt`, `xargs -I{} mv {} x`, `xargs rm`); and a path through a link the same line makes
// (`ln -s X hk && … > hk/p`), which nothing on disk shows yet. Such a write may go anywhere,
// so callers ask about it as they ask about a protected file.
func (s *Script) UnknownWrites() []string {
	var out []string
	all := s.allTargets()
	for _, t := range all {
		switch {
		case t.xargs != "":
			out = appendNew(out, "writes to files xargs names only when it runs: "+t.xargs)
		case t.Path.Dynamic:
			out = appendNew(out, "writes to a file only known when it runs: "+t.Path.Shown())
		case t.DirUnknown && !rooted(t.Path.Text):
			out = appendNew(out, "writes to a file in a folder only known when it runs: "+t.Path.Text)
		case t.LinkTo != nil && t.LinkTo.Path.Dynamic:
			out = appendNew(out, "makes a link to a place only known when it runs: "+t.Path.Text)
		}
	}
	var links []string
	for _, t := range all {
		if t.LinkTo != nil && !t.Path.Dynamic {
			links = append(links, path.Join(t.Dir, t.Path.Text))
		}
	}
	for _, t := range all {
		if t.Path.Dynamic || t.LinkTo != nil {
			continue
		}
		p := path.Join(t.Dir, t.Path.Text)
		for _, l := range links {
			if strings.HasPrefix(p, l+"/") {
				out = appendNew(out, "writes through the link "+l+" that the same line makes: "+t.Path.Text)
			}
		}
	}
	return out
}

// rooted reports whether a path does not depend on the folder the command runs in.
func rooted(p string) bool {
	return path.IsAbs(p) || filepath.IsAbs(p) || strings.HasPrefix(p, "~")
}

// WritePaths returns every file the line writes whose path is known (see Targets), absolute:
// relative paths joined to root (or the folder a cd went to), a leading ~/ expanded to the
// user's home, globs expanded on disk. A path under another user's home (~name/…) is kept
// as written, so it is never mistaken for a file inside root. Places that keep nothing
// (/dev/null, /dev/stderr, …) are left out. The caller compares them with the workspace roots:
// a write outside them is asked about (see README, Security).
func (s *Script) WritePaths(root string) []string {
	var out []string
	for _, t := range s.Targets() {
		p := t.Path.Text
		if sinks.Get()[p] {
			continue
		}
		if strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
			out = appendNew(out, p)
			continue
		}
		if d, ok := driveRooted(root, p); ok {
			// Windows: from the root of the current drive (cmd.exe), or of Git Bash's own
			// tree (/tmp); either way not relative to the working folder.
			out = appendNew(out, d)
			continue
		}
		out = appendNew(out, t.candidates(root)...)
	}
	return out
}

// joinDir places a directory that a command chose itself (git -C) under the line's directory.
func joinDir(base, d string) string {
	switch {
	case d == "":
		return base
	case path.IsAbs(d) || base == "":
		return d
	}
	return path.Join(base, d)
}

// argSpec says which options of a writing command take a separate value.
type argSpec struct {
	values nameList
}

// split separates options from operands. It returns the operands and, for each option
// that takes a value, its value (the last one given).
func (a argSpec) split(args []Word) (ops []Word, opts map[string]Word, flags []string) {
	opts = map[string]Word{}
	ended := false
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case ended || args[i].Dynamic || len(t) < 2 || t[0] != '-':
			ops = append(ops, args[i])
		case t == "--":
			ended = true
		default:
			name, value, inline := strings.Cut(t, "=")
			if !inline && len(t) > 2 && t[1] != '-' && a.values.has(t[:2]) {
				name, value, inline = t[:2], t[2:], true // -tDIR
			}
			flags = append(flags, name)
			if !a.values.has(name) {
				continue
			}
			if inline {
				opts[name] = Word{Text: value, Glob: args[i].Glob}
			} else if i+1 < len(args) {
				i++
				opts[name] = args[i]
			}
		}
	}
	return ops, opts, flags
}

func hasFlag(flags []string, names ...string) bool {
	for _, f := range flags {
		for _, n := range names {
			if f == n || len(n) == 2 && n[0] == '-' && len(f) > 2 && f[0] == '-' && f[1] != '-' &&
				strings.IndexByte(f[1:], n[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

var (
	copySpec   = argSpec{values: nameList{"-t", "--target-directory", "-S", "--suffix"}}
	instSpec   = argSpec{values: nameList{"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"}}
	teeSpec    = argSpec{values: nameList{"--output-error"}}
	scriptSpec = argSpec{values: nameList{"-c", "--command", "-E", "--echo", "-O", "--log-out", "-I", "--log-in",
		"-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format"}}
	modeSpec = argSpec{values: nameList{"--reference"}}
	// plainSpecs are the value-taking options of commands whose every operand is written.
	plainSpecs = lazy.Value[map[string]argSpec]{New: func() map[string]argSpec {
		return map[string]argSpec{
			"rm": {}, "rmdir": {}, "unlink": {},
			"touch":    {values: nameList{"-d", "--date", "-t", "-r", "--reference"}},
			"mkdir":    {values: nameList{"-m", "--mode", "--context"}},
			"truncate": {values: nameList{"-s", "--size", "-r", "--reference"}},
			"shred":    {values: nameList{"-n", "--iterations", "-s", "--size", "--random-source"}},
		}
	}}
)

// commandTargets returns what one simple command writes; Dir is set only when the command
// changes directory itself (git -C).
func commandTargets(name string, args []Word) []Target {
	ops := func(ws []Word, tree bool) []Target {
		out := make([]Target, 0, len(ws))
		for _, w := range ws {
			out = append(out, Target{Operand: Operand{Path: w}, Tree: tree})
		}
		return out
	}
	switch name {
	case "tee":
		o, _, _ := teeSpec.split(args)
		return ops(o, false)
	case "cp", "mv", "install", "ln":
		spec := copySpec
		if name == "install" {
			spec = instSpec
		}
		o, opts, flags := spec.split(args)
		if name == "install" && hasFlag(flags, "-d", "--directory") {
			return ops(o, false)
		}
		// cp -l and cp -s make links too: a hard link, or a symbolic one to the source as
		// written.
		links := name == "ln" || name == "cp" && hasFlag(flags, "-l", "--link", "-s", "--symbolic-link")
		out := destinations(o, opts, flags, name == "ln", links)
		if name == "ln" {
			symbolic := hasFlag(flags, "-s", "--symbolic") && !hasFlag(flags, "-r", "--relative")
			for i := range out {
				if out[i].LinkTo != nil && symbolic {
					if d := path.Dir(out[i].Path.Text); d != "." {
						out[i].LinkTo.Dir = d
					}
				}
			}
		}
		return out
	case "chmod", "chown", "chgrp":
		o, opts, flags := modeSpec.split(modeWords(name, args))
		if _, ok := opts["--reference"]; !ok && len(o) > 0 {
			o = o[1:] // the mode or owner
		}
		return ops(o, hasFlag(flags, "-R", "--recursive"))
	case "rm", "rmdir", "unlink", "touch", "mkdir", "truncate", "shred":
		o, _, flags := plainSpecs.Get()[name].split(args)
		return ops(o, name == "rm" && hasFlag(flags, "-r", "-R", "--recursive"))
	case "sort":
		return ops(sortOutputs(args), false)
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.Text, "of="); ok {
				return ops([]Word{{Text: v, Dynamic: a.Dynamic, Glob: a.Glob}}, false)
			}
		}
	case "sed":
		if !sedInPlace(args) {
			return nil
		}
		return ops(sedRead.operands(args), false)
	case "perl":
		files, ok := perlInPlace(args)
		if !ok {
			return nil
		}
		return ops(files, false)
	case "git":
		return gitTargets(args)
	case "time":
		// GNU time writes its report to the file -o names, in any spelling.
		own, _ := ownOptions("time", args)
		pa, _ := program{opts: timeOutput}.parseArgs(own)
		return ops(pa.files, false)
	case "script":
		// script records the session in its file operand (default ./typescript) and in the
		// files its logging options name.
		o, opts, _ := scriptSpec.split(args)
		if len(o) == 0 {
			o = []Word{{Text: "typescript"}}
		}
		for _, name := range []string{"-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing"} {
			if v, ok := opts[name]; ok {
				o = append(o, v)
			}
		}
		return ops(o, false)
	}
	return nil
}

// destinations are where cp, mv, install and ln put things: the destination itself and, when
// it is a folder, the entry each source becomes in it.
// link: the command is ln, which also takes a single operand; links: each target is a link
// to its source (Target.LinkTo).
func destinations(ops []Word, opts map[string]Word, flags []string, link, links bool) []Target {
	var dest Word
	srcs := ops
	if d, ok := opts["-t"]; ok {
		dest = d
	} else if d, ok := opts["--target-directory"]; ok {
		dest = d
	} else {
		switch {
		case len(ops) == 0:
			return nil
		case len(ops) == 1 && link:
			// `ln -s TARGET` makes a link named after TARGET in the current folder.
			return []Target{{Operand: Operand{Path: Word{Text: path.Base(ops[0].Text), Dynamic: ops[0].Dynamic}},
				LinkTo: &Operand{Path: ops[0]}}}
		case len(ops) == 1:
			return nil
		}
		dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	}
	out := []Target{{Operand: Operand{Path: dest}}}
	if links && len(srcs) == 1 {
		out[0].LinkTo = &Operand{Path: srcs[0]}
	}
	if hasFlag(flags, "-T", "--no-target-directory") {
		return out
	}
	for _, s := range srcs {
		if s.Dynamic || dest.Dynamic {
			continue
		}
		base := path.Base(strings.TrimRight(s.Text, "/"))
		if base == "/" || base == "." || base == ".." {
			continue
		}
		t := Target{Operand: Operand{Path: Word{Text: path.Join(dest.Text, base), Glob: dest.Glob || s.Glob}}}
		if links {
			t.LinkTo = &Operand{Path: s}
		}
		out = append(out, t)
	}
	return out
}

// modeWords marks chmod's symbolic modes that begin with "-" (chmod -x file) as operands by
// putting "--" before them, so the mode is not read as an option.
func modeWords(name string, args []Word) []Word {
	if name != "chmod" {
		return args
	}
	for i, a := range args {
		t := a.Text
		if len(t) > 1 && t[0] == '-' && strings.Trim(t[1:], "rwxXstugoa+-=,01234567") == "" && t != "-R" {
			out := append(append(append([]Word(nil), args[:i]...), Word{Text: "--"}), args[i:]...)
			return out
		}
	}
	return args
}

// sedInPlace reports whether sed edits its files in place (-i, -i.bak, --in-place, -ni).
func sedInPlace(args []Word) bool {
	for _, a := range args {
		t := a.Text
		switch {
		case t == "--":
			return false
		case strings.HasPrefix(t, "--in-place"):
			return true
		case len(t) > 1 && t[0] == '-' && t[1] != '-':
			for _, c := range t[1:] {
				if c == 'i' {
					return true
				}
				if c == 'e' || c == 'f' || c == 'l' {
					break // the rest is the option's value
				}
			}
		}
	}
	return false
}

// perlInPlace reports whether perl edits files in place (-i, -pi, -i.bak) and which files.
func perlInPlace(args []Word) ([]Word, bool) {
	inPlace, code := false, false
	var files []Word
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		if len(t) < 2 || t[0] != '-' || args[i].Dynamic {
			files = append(files, args[i:]...)
			break
		}
		if t == "--" {
			files = append(files, args[i+1:]...)
			break
		}
	flags:
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'i':
				inPlace = true
				break flags // the rest is the backup suffix
			case 'e', 'E':
				code = true
				if j == len(t)-1 {
					i++ // the code is the next word
				}
				break flags
			case 'I', 'M', 'm', 'x', 'C', 'd', 'D':
				break flags // the rest (or nothing) is the option's value
			}
		}
	}
	if !inPlace {
		return nil, false
	}
	if !code && len(files) > 0 {
		files = files[1:] // the program file
	}
	return files, true
}

// gitTargets reports .git/config for git config in a writing form: any key written, unset
// or renamed there changes what git runs (core.hooksPath, core.fsmonitor, aliases, …). With
// --global, --system or --file the file written is reported too (~/.gitconfig,
// /etc/gitconfig, the file), so a write outside the workspace is seen as one. git remote add
// (rename, remove, set-url) writes .git/config too, and git init --template .git/config and
// .git/hooks.
func gitTargets(args []Word) []Target {
	dir, unknown := "", false
	for i := 0; i+1 < len(args); i++ {
		if args[i].Text == "-C" {
			if args[i+1].Dynamic {
				unknown = true
			}
			dir = joinDir(dir, args[i+1].Text)
			i++
		} else if !strings.HasPrefix(args[i].Text, "-") {
			break
		}
	}
	rest := gitArgs(args)
	if len(rest) == 0 {
		return nil
	}
	config := Target{Operand: Operand{Path: Word{Text: ".git/config"}, Dir: dir, DirUnknown: unknown}}
	switch rest[0].Text {
	case "remote":
		// git remote add, rename, remove and set-url write the remote's section of .git/config
		// (a remote's url can name a program: ext::sh -c …).
		if len(rest) > 1 && remoteWrites.has(rest[1].Text) {
			return []Target{config}
		}
		return nil
	case "init":
		return initTargets(rest[1:], dir, unknown)
	case "config":
	default:
		return nil
	}
	sub := rest[1:]
	if hasWord(sub, "-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool") ||
		len(sub) > 0 && (sub[0].Text == "get" || sub[0].Text == "list") {
		return nil
	}
	out := []Target{config}
	// The file the setting goes to when it is not the repository's own.
	for i, a := range sub {
		var file Word
		switch {
		case a.Text == "--global":
			file = Word{Text: "~/.gitconfig"}
		case a.Text == "--system":
			file = Word{Text: "/etc/gitconfig"}
		case (a.Text == "--file" || a.Text == "-f") && i+1 < len(sub):
			file = sub[i+1]
		case strings.HasPrefix(a.Text, "--file="):
			file = a
			file.Text = strings.TrimPrefix(a.Text, "--file=")
		default:
			continue
		}
		out = append(out, Target{Operand: Operand{Path: file, Dir: dir, DirUnknown: unknown}})
	}
	return out
}

// timeOutput reads time's options with -o as the file it names (see wrapperOptionTables).
var timeOutput = opts(common + " -p --portability -v --verbose -q --quiet -f= --format= -o@ --output@ -a --append")

// remoteWrites are the subcommands of git remote that change .git/config.
var remoteWrites = nameList{"add", "rename", "remove", "rm", "set-url", "set-branches"}

// initTargets reports what `git init --template=DIR` writes: the template's hooks and config
// are copied into the new (or existing) repository's .git, in the folder given as operand or
// where git runs. A plain git init writes them from git's own template and is left alone.
func initTargets(args []Word, dir string, unknown bool) []Target {
	template := false
	var ops []Word
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case args[i].Dynamic:
			ops = append(ops, args[i])
		case len(t) > 2 && strings.HasPrefix("--template", strings.SplitN(t, "=", 2)[0]):
			// git takes any unique prefix of --template: --t, --temp, …
			template = true
			if !strings.Contains(t, "=") {
				i++
			}
		case t == "--separate-git-dir" || t == "-b" || t == "--initial-branch" || t == "--object-format" ||
			t == "--ref-format" || t == "--shared":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if !template {
		return nil
	}
	repo := ""
	if len(ops) > 0 {
		repo = ops[0].Text
		if ops[0].Dynamic {
			return []Target{{Operand: Operand{Path: ops[0], Dir: dir, DirUnknown: unknown}}}
		}
	}
	var out []Target
	for _, p := range []string{".git/config", ".git/hooks"} {
		out = append(out, Target{Operand: Operand{Path: Word{Text: path.Join(repo, p)}, Dir: dir, DirUnknown: unknown}})
	}
	return out
}

// FirstTarget returns the first file the line would write (see Targets) for which match
// returns a non-empty reason, with globs expanded against the disk; root is the folder the
// line starts in. For a Tree target, contains is asked about the folder as a whole. For a
// link that ln makes, match is also asked about what the link leads to: a link to .git/hooks
// made in the workspace lets any later write through it change the hooks.
func (s *Script) FirstTarget(root string, match func(abs string) string, contains func(abs string) string) (string, string) {
	for _, t := range s.Targets() {
		for _, abs := range t.candidates(root) {
			if why := match(abs); why != "" {
				return abs, why
			}
			if t.Tree && contains != nil {
				if why := contains(abs); why != "" {
					return abs, why
				}
			}
		}
		if t.LinkTo == nil || t.LinkTo.Path.Dynamic || t.LinkTo.Path.Text == "" {
			continue
		}
		for _, abs := range t.LinkTo.candidates(root) {
			if why := match(abs); why != "" {
				return abs, why
			}
		}
	}
	return "", ""
}

// candidates is the absolute path of an operand, or the files its glob matches on disk
// (and the pattern itself, so a glob that matches nothing yet is still judged by its text).
func (o Operand) candidates(root string) []string {
	p := absPath(root, o)
	if !o.Path.Glob {
		return []string{p}
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return []string{p}
	}
	return append(matches, p)
}

// sortOutputs returns the files sort writes its result to: -o FILE, -oFILE, -o inside a
// cluster (-uo FILE), and --output=FILE in any abbreviation (every long option of sort that
// starts with "--o" is --output).
func sortOutputs(args []Word) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		switch {
		case t == "--":
			return out
		case strings.HasPrefix(t, "--o"):
			name, value, inline := strings.Cut(t, "=")
			if !strings.HasPrefix("--output", name) {
				continue
			}
			if inline {
				out = append(out, Word{Text: value, Dynamic: a.Dynamic, Glob: a.Glob})
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case len(t) > 1 && t[0] == '-' && t[1] != '-':
			// A cluster: the first letter that takes a value takes the rest of the word, or
			// the next word.
			for j := 1; j < len(t); j++ {
				if !strings.ContainsRune("ktSTo", rune(t[j])) {
					continue
				}
				var v Word
				if j+1 < len(t) {
					v = Word{Text: t[j+1:], Dynamic: a.Dynamic, Glob: a.Glob}
				} else if i+1 < len(args) {
					i++
					v = args[i]
				}
				if t[j] == 'o' {
					out = append(out, v)
				}
				break
			}
		}
	}
	return out
}
