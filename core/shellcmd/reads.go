package shellcmd

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// readSpec says where a file-reading command takes the files whose content it prints.
type readSpec struct {
	// values are options followed by a separate value; files are those whose value is a
	// file that is read (grep -f FILE).
	values, files nameList
	// pattern is set when the first operand is a pattern or program, not a file, unless
	// one of patternOpts supplied it.
	pattern     bool
	patternOpts nameList
	// allButLast: the last operand is a destination (cp, mv) unless targetOpts gave one.
	allButLast bool
	targetOpts nameList
	// firstOnly: only the first operand is read (xxd, source).
	firstOnly bool
	// assigns: operands holding "=" set variables (awk).
	assigns bool
}

var (
	plainRead = readSpec{}
	headRead  = readSpec{values: nameList{"-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"}}
	odRead    = readSpec{values: nameList{"-A", "-t", "-j", "-N", "-w", "-S"}}
	wrapRead  = readSpec{values: nameList{"-w", "--wrap"}}
	batRead   = readSpec{values: nameList{"-l", "--language", "-H", "--highlight-line", "-r", "--line-range", "--theme", "--style"}}
	nlRead    = readSpec{values: nameList{"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"}}
	diffRead  = readSpec{values: nameList{"-U", "-C", "-I", "-x", "-X", "--label"}}
	grepRead  = readSpec{values: nameList{"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file", "--max-count",
		"--context", "--after-context", "--before-context", "-g", "-t", "-T", "-j", "-M", "-E", "--type", "--glob",
		"--max-depth", "--encoding", "-G", "--ignore"},
		files: nameList{"-f", "--file"}, pattern: true, patternOpts: nameList{"-e", "-f", "--regexp", "--file"}}
	sedRead = readSpec{values: nameList{"-e", "-f", "-l", "--expression", "--file", "--line-length"},
		files: nameList{"-f", "--file"}, pattern: true, patternOpts: nameList{"-e", "-f", "--expression", "--file"}}
	awkRead = readSpec{values: nameList{"-f", "-v", "-F", "--file", "--assign", "--field-separator"},
		files: nameList{"-f", "--file"}, pattern: true, patternOpts: nameList{"-f", "--file"}, assigns: true}
	copyRead = readSpec{values: nameList{"-t", "-S", "--target-directory", "--suffix"}, allButLast: true,
		targetOpts: nameList{"-t", "--target-directory"}}
	firstRead = readSpec{values: nameList{"-s", "-l", "-c", "-g", "-o", "-C", "-n"}, firstOnly: true}
	psRead    = readSpec{values: nameList{"-Path", "-LiteralPath", "-TotalCount", "-Tail", "-Head", "-First", "-Last",
		"-Encoding", "-Delimiter", "-ReadCount"}, files: nameList{"-Path", "-LiteralPath"}}
)

// readCommands are the common commands that print the content of the files they are given.
var readCommands = lazy.Value[map[string]readSpec]{New: func() map[string]readSpec {
	return map[string]readSpec{
		"cat": plainRead, "tac": plainRead, "head": headRead, "tail": headRead, "less": plainRead,
		"more": plainRead, "bat": batRead, "batcat": batRead, "nl": nlRead, "strings": wrapRead,
		"od": odRead, "base64": wrapRead, "diff": diffRead, "rev": plainRead, "zcat": plainRead,
		"type": plainRead, "hexdump": odRead,
		"grep": grepRead, "egrep": grepRead, "fgrep": grepRead, "rg": grepRead, "ag": grepRead,
		"sed": sedRead, "awk": awkRead, "gawk": awkRead, "mawk": awkRead,
		"cp": copyRead, "mv": copyRead,
		"xxd": firstRead, "source": firstRead, ".": firstRead,
		"Get-Content": psRead, "gc": psRead, "cat.exe": plainRead,
		"get-content": psRead, // on Windows every name is in lower case (Command.Name)
	}
}}

// Reads returns the files that simple reading commands of the line would print, files
// given to `<`, and the file `xargs -a` reads the command's arguments from (`xargs -a .env
// echo` prints it). Words known only at run time are left out: this is a best effort.
func (s *Script) Reads() []Operand {
	out := append([]Operand(nil), s.reads...)
	for _, c := range s.Commands {
		if c.Wrapper {
			if c.Name() == "xargs" {
				pa, _ := wrapperOwnOptions(c) // the files named before an unknown option
				for _, w := range pa.files {
					out = append(out, Operand{Path: w, Dir: c.Dir, DirUnknown: c.DirUnknown})
				}
			}
			continue
		}
		if ws, ok := tableReads(c, useRead); ok {
			for _, w := range ws {
				out = append(out, Operand{Path: w, Dir: c.Dir, DirUnknown: c.DirUnknown})
			}
			continue
		}
		spec, ok := readCommands.Get()[c.Name()]
		if !ok {
			continue
		}
		for _, w := range spec.operands(c.Words[1:]) {
			out = append(out, Operand{Path: w, Dir: c.Dir})
		}
	}
	kept := out[:0]
	for _, o := range out {
		if !o.Path.Dynamic && o.Path.Text != "" && o.Path.Text != "-" {
			kept = append(kept, o)
		}
	}
	return kept
}

func (r readSpec) operands(args []Word) []Word {
	var ops, files []Word
	patternGiven, targetGiven, ended := false, false, false
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case ended || args[i].Dynamic || len(t) < 2 || t[0] != '-':
			if r.assigns && strings.Contains(t, "=") && !strings.ContainsAny(t, "/") {
				continue
			}
			ops = append(ops, args[i])
		case t == "--":
			ended = true
		default:
			name, value, inline := strings.Cut(t, "=")
			if !inline && len(t) > 2 && t[1] != '-' && r.values.has(t[:2]) && !r.values.has(t) {
				name, value, inline = t[:2], t[2:], true // -fFILE
			}
			patternGiven = patternGiven || r.patternOpts.has(name)
			targetGiven = targetGiven || r.targetOpts.has(name)
			if !r.values.has(name) {
				continue
			}
			var v Word
			if inline {
				v = Word{Text: value, Glob: args[i].Glob, Dynamic: args[i].Dynamic}
			} else if i+1 < len(args) {
				i++
				v = args[i]
			}
			if r.files.has(name) {
				files = append(files, v)
			}
		}
	}
	if r.pattern && !patternGiven && len(ops) > 0 {
		ops = ops[1:]
	}
	if r.allButLast && !targetGiven && len(ops) > 0 {
		ops = ops[:len(ops)-1]
	}
	if r.firstOnly && len(ops) > 1 {
		ops = ops[:1]
	}
	return append(files, ops...)
}

// tableReads lists the operands of a command on the read-only table (see programs) that it
// uses as want says, and for git the files named as REV:PATH (relative to the directory git
// runs in: an approximation of the top of the repository). ok is false for a program not on
// the table, or one used in a form the table does not read (the older readCommands then
// apply).
func tableReads(c Command, want operandUse) ([]Word, bool) {
	name := c.Name()
	if name == "git" {
		g, ok := readGit(c.Words[1:])
		if !ok || !g.readOnly {
			return nil, false
		}
		if g.dir == "" {
			return g.reads, true
		}
		var out []Word
		for _, r := range g.reads {
			out = append(out, Word{Text: joinGitDir(g.dir, r.Text)})
		}
		if want == useLook {
			out = append(out, Word{Text: g.dir})
		}
		return out, true
	}
	if name == "find" {
		starts, ok := findParts(c.Words[1:])
		if !ok || want != useLook {
			return nil, ok
		}
		if len(starts) == 0 {
			starts = []Word{{Text: "."}}
		}
		return starts, true
	}
	p, ok := programs.Get()[name]
	if !ok || p.free {
		return nil, false
	}
	pa, ok := p.parseArgs(c.Words[1:])
	if !ok {
		return nil, false
	}
	var out []Word
	if want == useRead || want == useLook {
		out = append(out, pa.files...)
	}
	if p.use == want || want == useLook && p.use == useRead {
		out = append(out, p.fileOperands(pa)[len(pa.files):]...)
	}
	return out, true
}

// FirstOutside returns the first file or folder the line reads or looks at (the operands of
// the read-only table's programs and the files Reads lists; "~" is the home folder) that is
// not inside the workspace, as an absolute path. root is the directory the line starts in;
// inside reports whether an absolute path is in the workspace. The caller asks for such a
// line as read_file asks for a file outside the workspace (`cat ~/.ssh/id_rsa`). A relative
// operand after a cd that cannot be followed is reported as it stands: it may be anywhere.
func (s *Script) FirstOutside(root string, inside func(abs string) bool) (string, bool) {
	ops := s.Reads()
	for _, c := range s.Commands {
		if c.Wrapper {
			continue
		}
		ws, ok := tableReads(c, useLook)
		if ok && len(ws) == 0 && looksHere(c) {
			ws = []Word{{Text: "."}} // ls, du, tree, rg, grep -r and git look where they run
		}
		for _, w := range ws {
			ops = append(ops, Operand{Path: w, Dir: c.Dir, DirUnknown: c.DirUnknown})
		}
	}
	for _, o := range ops {
		if o.Path.Dynamic {
			continue
		}
		if o.DirUnknown && !filepath.IsAbs(o.Path.Text) && !strings.HasPrefix(o.Path.Text, "~") {
			return o.Path.Text, true
		}
		candidates := o.candidates(root)
		if !o.Path.Glob {
			candidates = candidates[:1]
		}
		for _, abs := range candidates {
			if !inside(abs) {
				return abs, true
			}
		}
	}
	return "", false
}

// looksHere reports whether a command given no file looks at the folder it runs in (for git,
// the folder -C names).
func looksHere(c Command) bool {
	switch c.Name() {
	case "ls", "du", "tree", "rg", "git":
		return true
	case "grep", "egrep", "fgrep":
		pa, ok := programs.Get()["grep"].parseArgs(c.Words[1:])
		if !ok {
			return false
		}
		for _, u := range pa.used {
			if u == "-r" || u == "-R" || u == "--recursive" || u == "--dereference-recursive" {
				return true
			}
		}
	}
	return false
}

// FirstIgnored returns the first file the line would read (see Reads) that ignored blocks,
// with globs expanded against the disk. root is the directory the line starts in.
func (s *Script) FirstIgnored(root string, ignored func(abs string) bool) (string, bool) {
	for _, o := range s.Reads() {
		candidates := o.candidates(root)
		if !o.Path.Glob {
			candidates = candidates[:1]
		} else {
			candidates = candidates[:len(candidates)-1] // only files that exist are read
		}
		for _, abs := range candidates {
			if ignored(abs) {
				return abs, true
			}
		}
	}
	return "", false
}

// absPath is the absolute, cleaned path of an operand: relative to its directory, itself
// relative to root; "~" is the home folder.
func absPath(root string, o Operand) string {
	dir := root
	if o.Dir != "" {
		dir = o.Dir
		if d, ok := driveRooted(root, dir); ok {
			dir = d
		} else if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, filepath.FromSlash(o.Dir))
		}
	}
	p := o.Path.Text
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if d, ok := driveRooted(root, p); ok {
		return d
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	return filepath.Clean(p)
}

// driveRooted reads a path that starts with a slash but is not absolute (only on Windows:
// `/etc/passwd`, `\Users`) as cmd.exe and Git Bash do: from the root of a drive, never relative
// to the working folder. It takes root's drive; ok is false for every other path.
func driveRooted(root, p string) (string, bool) {
	if p == "" || p[0] != '/' && p[0] != '\\' || filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Join(filepath.VolumeName(root)+string(filepath.Separator), filepath.FromSlash(p)), true
}
