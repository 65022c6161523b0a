package shellcmd

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cairnhq/cairn/core/lazy"
)

// maxDepth bounds how deeply scripts given to `bash -c`, `eval` and the like are followed.
const maxDepth = 8

// Command is one simple command as the shell will run it.
type Command struct {
	// Words are the command's words with quotes removed, name first.
	Words []Word
	// Wrapper is set when the command runs another one that is listed separately (sudo,
	// env, timeout, xargs, `bash -c`, eval, …).
	Wrapper bool
	// Dir is where the command runs, relative to where the line starts (or absolute), as
	// far as literal `cd` commands before it show; "" for the starting directory.
	Dir string
	// DirUnknown is set when a `cd` before the command went somewhere only known when it
	// runs (`cd "$(…)"`, `cd $d`, `popd`): Dir is then only the part that literal `cd`s
	// added afterwards, and a relative path may be anywhere.
	DirUnknown bool

	scope    int
	pos, end uint
	// xargs is set for a command that xargs runs: it gets more arguments when it runs,
	// appended or, with -I, put where xargsRepl stands.
	xargs     bool
	xargsRepl string
	// windows: the line runs on Windows, where a program is found whatever the case of its
	// name and with or without its extension (see Name).
	windows bool
}

// Name is the command's name without its directory ("/bin/rm" is "rm"), "" when unknown. On
// Windows it is also without its directory after a backslash and without an executable's
// extension, in lower case: `C:\Git\bin\GIT.EXE` runs git, and `rm.exe` and `RM` run rm, so the
// deny list and the read-only rules must see them as such.
func (c Command) Name() string {
	if len(c.Words) == 0 || c.Words[0].Dynamic || c.Words[0].Glob {
		return ""
	}
	name := path.Base(c.Words[0].Text)
	if !c.windows {
		return name
	}
	name = strings.ToLower(name[strings.LastIndexAny(name, `\:`)+1:])
	for _, ext := range []string{".exe", ".com", ".cmd", ".bat"} {
		if base, ok := strings.CutSuffix(name, ext); ok && base != "" {
			return base
		}
	}
	return name
}

// Operand is a file a command reads, with the directory it is relative to.
type Operand struct {
	Path Word
	Dir  string
	// DirUnknown: a cd before went to a folder only known when the line runs, so a relative
	// Path may be anywhere (see Command.DirUnknown).
	DirUnknown bool
}

// Script is a parsed command line.
type Script struct {
	// Commands are every simple command, in source order, including those inside
	// substitutions, functions and nested scripts.
	Commands []Command
	// Opaque says, in words for the user, what could not be seen through.
	Opaque []string
	// Writes are the files written by redirections anywhere in the line.
	Writes []Word
	// ShellPipes names the shells that read a script from a pipe (`curl … | sh`).
	ShellPipes []string
	// Recursive names functions that call themselves (`:(){ :|:& };:`).
	Recursive []string
	// RiskyAssigns names variables set in the line that change what later commands run
	// (PATH, LD_PRELOAD, GIT_*, HOME, …).
	RiskyAssigns []string

	// nonLiteral says what in the line is not literal after quote removal (see literal.go);
	// the read-only classification accepts no such line.
	nonLiteral []string

	reads   []Operand
	writes  []Operand // Writes, with the directory each is relative to
	pipes   []pipe
	sources []string
}

// pipe is one `|`: the commands on its left feed those on its right.
type pipe struct {
	scope       int
	left, right [2]uint
}

// Parse reads src as a bash command line. A line that does not parse is an error: callers
// must not run it without asking.
//
// On Windows the line is usually for cmd.exe or PowerShell, where a backslash separates path
// elements and escapes nothing (`type C:\Users\me\.env`), but the user's shell may be Git
// Bash, where it escapes as on Unix. There the line is read both ways and the Script holds the
// commands of both readings, so every question is answered pessimistically: a deny-list hit
// in either reading denies, read-only and allowed need both, and the files either reading
// reads or writes are all listed. Quotes, operators and redirections are read as bash reads
// them in both; scripts handed to a shell inside the line (`bash -c '…'`) are bash.
func Parse(src string) (*Script, error) {
	return parse(src, runtime.GOOS == "windows")
}

// parse is Parse with the platform given.
func parse(src string, windows bool) (*Script, error) {
	if strings.TrimSpace(src) == "" {
		return nil, ErrEmpty
	}
	s := &Script{}
	w := &walker{s: s, windows: windows, onWindows: windows}
	if err := w.script(src, "", false, 0); err != nil {
		return nil, err
	}
	if !windows || !strings.Contains(src, `\`) {
		return s, nil
	}
	// The bash reading. A line bash cannot parse (`dir "C:\temp\"` leaves a quote open
	// there) cannot be run by bash either, so only its Windows reading counts; a line too
	// deeply nested is refused whichever way it is read.
	bash := &Script{}
	bw := &walker{s: bash, scopes: w.scopes, onWindows: windows}
	if err := bw.script(src, "", false, 0); err != nil {
		if errors.Is(err, ErrTooDeep) {
			return nil, err
		}
		return s, nil
	}
	s.merge(bash)
	return s, nil
}

// merge adds the commands and findings of another reading of the same line to s.
func (s *Script) merge(o *Script) {
	s.Commands = append(s.Commands, o.Commands...)
	s.Opaque = appendNew(s.Opaque, o.Opaque...)
	s.Writes = append(s.Writes, o.Writes...)
	s.ShellPipes = appendNew(s.ShellPipes, o.ShellPipes...)
	s.Recursive = appendNew(s.Recursive, o.Recursive...)
	s.RiskyAssigns = appendNew(s.RiskyAssigns, o.RiskyAssigns...)
	s.nonLiteral = appendNew(s.nonLiteral, o.nonLiteral...)
	s.reads = append(s.reads, o.reads...)
	s.writes = append(s.writes, o.writes...)
	s.pipes = append(s.pipes, o.pipes...)
	s.sources = append(s.sources, o.sources...)
}

// appendNew appends the items of add that list does not hold yet.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// walker turns syntax trees into Commands. scopes numbers each parsed source so positions
// from nested scripts are never compared with the outer line's.
type walker struct {
	s       *Script
	scopes  int
	windows bool // the outermost line is read the Windows way (see Parse)
	// onWindows: the line runs on Windows, whichever way it is read (see Command.Name).
	onWindows bool
}

// frame is the state of walking one source.
type frame struct {
	scope int
	depth int
	dir   string
	// dirUnknown: a cd went somewhere only known when the line runs (see Command.DirUnknown).
	dirUnknown bool
	pipedIn    map[*syntax.Stmt]bool
}

func (w *walker) script(src, dir string, dirUnknown bool, depth int) error {
	if depth > maxDepth {
		return ErrTooDeep
	}
	text := src
	if depth == 0 && w.windows {
		text = literalBackslashes(src)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return fmt.Errorf("shellcmd: %w", err)
	}
	w.s.sources = append(w.s.sources, src)
	fr := &frame{scope: w.scopes, depth: depth, dir: dir, dirUnknown: dirUnknown, pipedIn: map[*syntax.Stmt]bool{}}
	w.scopes++
	var werr error
	hdocs := map[*syntax.Word]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if werr != nil {
			return false
		}
		w.literal(text, hdocs, n)
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Hdoc != nil {
				hdocs[n.Hdoc] = true
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				fr.pipedIn[n.Y] = true
				w.s.pipes = append(w.s.pipes, pipe{scope: fr.scope,
					left:  [2]uint{n.X.Pos().Offset(), n.X.End().Offset()},
					right: [2]uint{n.Y.Pos().Offset(), n.Y.End().Offset()}})
			}
		case *syntax.Stmt:
			werr = w.stmt(fr, n)
		case *syntax.FuncDecl:
			w.funcDecl(n)
		case *syntax.DeclClause:
			w.decl(fr, n)
		}
		return true
	})
	return werr
}

// stmt handles one statement: its simple command (if it is one) and its redirections.
func (w *walker) stmt(fr *frame, st *syntax.Stmt) error {
	piped := fr.pipedIn[st]
	if piped {
		// `x | { a; b; }`: the block's statements read the pipe.
		switch c := st.Cmd.(type) {
		case *syntax.Block:
			for _, in := range c.Stmts {
				fr.pipedIn[in] = true
			}
		case *syntax.Subshell:
			for _, in := range c.Stmts {
				fr.pipedIn[in] = true
			}
		}
	}
	stdinShell := false
	if call, ok := st.Cmd.(*syntax.CallExpr); ok {
		w.assigns(call.Assigns)
		var err error
		stdinShell, err = w.simple(fr, st, wordsOf(call.Args))
		if err != nil {
			return err
		}
	}
	for _, r := range st.Redirs {
		if err := w.redirect(fr, r, stdinShell); err != nil {
			return err
		}
	}
	if stdinShell && piped {
		w.s.ShellPipes = append(w.s.ShellPipes, lastShell(w.s.Commands))
	}
	return nil
}

func lastShell(cmds []Command) string {
	for i := len(cmds) - 1; i >= 0; i-- {
		if shells.Get()[cmds[i].Name()] {
			return cmds[i].Name()
		}
	}
	return "sh"
}

func (w *walker) redirect(fr *frame, r *syntax.Redirect, stdinShell bool) error {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob,
		syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		target := wordOf(r.Word)
		if r.Op == syntax.RdrInOut {
			w.s.reads = append(w.s.reads, Operand{Path: target, Dir: fr.dir, DirUnknown: fr.dirUnknown})
		}
		if !target.Literal() || !sinks.Get()[target.Text] {
			w.s.Writes = append(w.s.Writes, target)
			w.s.writes = append(w.s.writes, Operand{Path: target, Dir: fr.dir, DirUnknown: fr.dirUnknown})
		}
	case syntax.DplOut:
		// `2>&1` and `>&-` duplicate or close descriptors; `>& file` writes a file.
		target := wordOf(r.Word)
		if !target.Literal() || !isDescriptor(target.Text) && !sinks.Get()[target.Text] {
			w.s.Writes = append(w.s.Writes, target)
			w.s.writes = append(w.s.writes, Operand{Path: target, Dir: fr.dir, DirUnknown: fr.dirUnknown})
		}
	case syntax.RdrIn:
		w.s.reads = append(w.s.reads, Operand{Path: wordOf(r.Word), Dir: fr.dir})
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		if !stdinShell {
			return nil
		}
		body := r.Hdoc
		if r.Op == syntax.WordHdoc {
			body = r.Word
		}
		if body == nil {
			return nil
		}
		text := hdocWordOf(body)
		if text.Dynamic {
			w.s.Opaque = append(w.s.Opaque, "a shell reads a script that is only known when it runs")
			return nil
		}
		return w.script(text.Text, fr.dir, fr.dirUnknown, fr.depth+1)
	}
	return nil
}

// sinks are redirection targets that write nothing anyone keeps.
var sinks = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true,
		"/dev/tty": true, "/dev/fd/1": true, "/dev/fd/2": true}
}}

func isDescriptor(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// riskyNames are variables whose value decides which program or code later commands run.
// HOME and the XDG configuration folders move the configuration files git and other programs
// read (~/.gitconfig, $XDG_CONFIG_HOME/git/config), where core.fsmonitor or a pager names a
// program: a line that sets one in front of any program is not read-only (README, "Safe
// commands are Cairn's call").
var riskyNames = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"PATH": true, "IFS": true, "BASH_ENV": true, "ENV": true,
		"PAGER": true, "MANPAGER": true, "PROMPT_COMMAND": true, "PS4": true, "SHELLOPTS": true,
		"BASHOPTS": true, "ZDOTDIR": true, "NODE_OPTIONS": true, "PYTHONPATH": true,
		"PYTHONSTARTUP": true, "PERL5OPT": true, "RUBYOPT": true, "EDITOR": true, "VISUAL": true,
		"HOME": true, "XDG_CONFIG_HOME": true, "XDG_CONFIG_DIRS": true}
}}

func risky(name string) bool {
	return riskyNames.Get()[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "GIT_") || readerConfigVars.has(name)
}

func (w *walker) assigns(as []*syntax.Assign) {
	for _, a := range as {
		if a.Name != nil && risky(a.Name.Value) {
			w.s.RiskyAssigns = append(w.s.RiskyAssigns, a.Name.Value)
		}
	}
}

// decl handles export/declare/local/readonly/typeset: a command that sets variables.
func (w *walker) decl(fr *frame, d *syntax.DeclClause) {
	words := []Word{{Text: d.Variant.Value}}
	for _, a := range d.Args {
		switch {
		case a.Name != nil:
			if risky(a.Name.Value) {
				w.s.RiskyAssigns = append(w.s.RiskyAssigns, a.Name.Value)
			}
			words = append(words, Word{Text: a.Name.Value})
		case a.Value != nil:
			v := wordOf(a.Value)
			if name, _, ok := strings.Cut(v.Text, "="); ok && risky(name) || v.Dynamic {
				w.s.RiskyAssigns = append(w.s.RiskyAssigns, v.Text)
			}
			words = append(words, v)
		}
	}
	w.s.Commands = append(w.s.Commands, Command{Words: words, Dir: fr.dir, DirUnknown: fr.dirUnknown, scope: fr.scope,
		pos: d.Pos().Offset(), end: d.End().Offset(), windows: w.onWindows})
}

// funcDecl notes functions whose body calls the function itself: the shape of a fork bomb.
func (w *walker) funcDecl(fd *syntax.FuncDecl) {
	if fd.Name == nil || fd.Body == nil {
		return
	}
	name := fd.Name.Value
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 && call.Args[0].Lit() == name {
			w.s.Recursive = append(w.s.Recursive, name)
			return false
		}
		return true
	})
}

// simple records one simple command and, for wrappers, the command it runs. It reports
// whether the command that finally runs is a shell reading its script from standard input.
func (w *walker) simple(fr *frame, st *syntax.Stmt, words []Word) (bool, error) {
	if len(words) == 0 {
		return false, nil
	}
	cmd := Command{Words: words, Dir: fr.dir, DirUnknown: fr.dirUnknown, scope: fr.scope, pos: st.Pos().Offset(),
		end: st.End().Offset(), windows: w.onWindows}
	name := cmd.Name()
	if name == "" {
		w.s.Opaque = append(w.s.Opaque, "the name of a command is only known when it runs")
		w.s.Commands = append(w.s.Commands, cmd)
		return false, nil
	}
	args := words[1:]
	if shown, ok := evaluatedName(name, args); ok {
		w.s.Opaque = append(w.s.Opaque, hiddenReason("a variable name whose subscript runs code", shown))
	}
	if shells.Get()[name] {
		cmd.Wrapper = true
		w.s.Commands = append(w.s.Commands, cmd)
		return w.shell(fr, args)
	}
	switch name {
	case "eval":
		cmd.Wrapper = true
		w.s.Commands = append(w.s.Commands, cmd)
		return false, w.nested(fr, args, "eval")
	case "trap":
		// trap's first operand is a script the shell runs on a signal or on exit.
		if len(args) > 1 && !strings.HasPrefix(args[0].Text, "-") {
			cmd.Wrapper = true
			w.s.Commands = append(w.s.Commands, cmd)
			return false, w.nested(fr, args[:1], "trap")
		}
	case "mapfile", "readarray":
		// -C names a script run every -c lines.
		for i, a := range args {
			if a.Text == "-C" && i+1 < len(args) {
				cmd.Wrapper = true
				w.s.Commands = append(w.s.Commands, cmd)
				return false, w.nested(fr, args[i+1:i+2], name+" -C")
			}
		}
	case "watch":
		cmd.Wrapper = true
		w.s.Commands = append(w.s.Commands, cmd)
		return false, w.nested(fr, skipOptions(args, map[string]bool{"-n": true, "--interval": true, "-d": false}), "watch")
	case "source", ".":
		if len(args) > 0 && args[0].Dynamic {
			w.s.Opaque = append(w.s.Opaque, "a script that is only known when it runs is sourced")
		}
	case "alias":
		for _, a := range args {
			if strings.Contains(a.Text, "=") {
				w.s.Opaque = append(w.s.Opaque, "an alias changes what later words mean")
				break
			}
		}
	case "cd", "pushd", "popd":
		fr.chdir(name, args)
	case "git":
		if err := w.gitAliases(fr, st, args); err != nil {
			return false, err
		}
	case "find":
		w.s.Commands = append(w.s.Commands, cmd)
		for _, inner := range findExecs(args) {
			if _, err := w.simple(fr, st, inner); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	if script, ok := shellOption(name, args); ok {
		// flock … -c and script -c hand their string to a shell.
		cmd.Wrapper = true
		w.s.Commands = append(w.s.Commands, cmd)
		if script.Dynamic {
			w.s.Opaque = append(w.s.Opaque, name+" runs a script that is only known when it runs")
			return false, nil
		}
		return false, w.script(script.Text, fr.dir, fr.dirUnknown, fr.depth+1)
	}
	if name == "env" {
		if split, ok := envSplitString(args); ok {
			cmd.Wrapper = true
			w.s.Commands = append(w.s.Commands, cmd)
			if !split.Literal() {
				w.s.Opaque = append(w.s.Opaque, "env -S runs a command that is only known when it runs")
				return false, nil
			}
			return false, w.script(split.Text, fr.dir, fr.dirUnknown, fr.depth+1)
		}
	}
	if inner, ok := peel(name, args); ok {
		for _, a := range envAssigns(name, args) {
			if risky(a) {
				w.s.RiskyAssigns = append(w.s.RiskyAssigns, a)
			}
		}
		cmd.Wrapper = true
		w.s.Commands = append(w.s.Commands, cmd)
		if len(inner) == 0 {
			return false, nil
		}
		first := len(w.s.Commands)
		stdin, err := w.simple(fr, st, inner)
		if name == "xargs" {
			repl, _ := xargsReplace(args)
			for i := first; i < len(w.s.Commands); i++ {
				w.s.Commands[i].xargs, w.s.Commands[i].xargsRepl = true, repl
			}
		}
		return stdin, err
	}
	w.s.Commands = append(w.s.Commands, cmd)
	return false, nil
}

// shell handles `bash -c script`, `bash script.sh` and `bash` reading standard input.
func (w *walker) shell(fr *frame, args []Word) (bool, error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			w.s.Opaque = append(w.s.Opaque, "a shell runs a script that is only known when it runs")
			return false, nil
		}
		t := a.Text
		switch {
		case t == "--" || t == "-":
			return i+1 >= len(args), nil
		case t == "-o" || t == "+o" || t == "-O" || t == "+O" || t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			if strings.ContainsRune(t[1:], 'c') && t[0] == '-' {
				if i+1 >= len(args) {
					return false, nil
				}
				script := args[i+1]
				staticGlob := script.Glob && !script.Dynamic
				if !script.Literal() && !staticGlob {
					w.s.Opaque = append(w.s.Opaque, "a shell runs a script that is only known when it runs")
					return false, nil
				}
				return false, w.script(script.Text, fr.dir, fr.dirUnknown, fr.depth+1)
			}
			if strings.ContainsRune(t[1:], 's') && t[0] == '-' {
				return true, nil
			}
		default:
			// A script file: what it does is not visible here.
			return false, nil
		}
	}
	return true, nil
}

// nested parses the words given to eval or watch, joined by spaces, as a script.
func (w *walker) nested(fr *frame, args []Word, what string) error {
	if len(args) == 0 {
		return nil
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if a.Dynamic {
			w.s.Opaque = append(w.s.Opaque, what+" runs a script that is only known when it runs")
			return nil
		}
		parts[i] = a.Text
	}
	return w.script(strings.Join(parts, " "), fr.dir, fr.dirUnknown, fr.depth+1)
}

// shells are the interpreters whose -c string and standard input are shell scripts.
var shells = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
		"mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true}
}}

// findExecs returns the commands find runs with -exec, -execdir, -ok and -okdir.
func findExecs(args []Word) [][]Word {
	var out [][]Word
	for i := 0; i < len(args); i++ {
		switch args[i].Text {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].Text != ";" && args[j].Text != "+" {
				j++
			}
			if j > i+1 {
				out = append(out, args[i+1:j])
			}
			i = j
		}
	}
	return out
}

// literalBackslashes rewrites a Windows command line so that a bash parser reads each of its
// backslashes as the character itself: outside single quotes every backslash is doubled (bash
// turns `\\` back into one, bare or inside double quotes); inside single quotes bash already
// keeps it.
func literalBackslashes(src string) string {
	if !strings.Contains(src, `\`) {
		return src
	}
	var b strings.Builder
	b.Grow(len(src) + 8)
	single, double := false, false
	for _, r := range src {
		switch {
		case r == '\'' && !double:
			single = !single
		case r == '"' && !single:
			double = !double
		case r == '\\' && !single:
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// chdir follows cd, pushd and popd. A change to a folder the line does not name literally
// marks the directory unknown instead of keeping the old one: relative paths after it may be
// anywhere. A later cd to an absolute path makes it known again.
func (fr *frame) chdir(name string, args []Word) {
	if name == "cd" {
		for len(args) > 0 && len(args[0].Text) > 1 && args[0].Text[0] == '-' && !args[0].Dynamic {
			if args[0].Text == "--" {
				args = args[1:]
				break
			}
			args = args[1:] // -L, -P, -e, -@
		}
	}
	if name == "popd" || len(args) != 1 || !args[0].Literal() || args[0].Text == "-" ||
		strings.HasPrefix(args[0].Text, "~") || name == "pushd" && strings.HasPrefix(args[0].Text, "+") {
		// cd alone goes home, cd - back, popd and pushd +N to a folder from the stack.
		fr.dirUnknown = true
		return
	}
	if path.IsAbs(args[0].Text) {
		fr.dir = path.Clean(args[0].Text)
		fr.dirUnknown = false
		return
	}
	fr.dir = path.Clean(path.Join(fr.dir, args[0].Text))
	if fr.dir == "." {
		fr.dir = ""
	}
}
