package shellcmd

import (
	"slices"
	"strings"
	"sync"
)

// The read-only classification (README, "Safe commands are Cairn's call") accepts a simple
// command only when its program is known and every option it is given is one Cairn knows to
// be harmless. This file holds the option machinery; the tables are in readonly.go and
// readonly_git.go.

// optKind says how a program takes one of its options.
type optKind uint8

const (
	optFlag     optKind = iota // no value
	optValue                   // a value: attached (-n5, --lines=5) or the next word
	optFile                    // a value naming a file whose content it reads (grep -f FILE)
	optMaybe                   // an optional value, only attached (--color=auto, -O less)
	optPair                    // two words: a name, then a value (jq --arg NAME VALUE)
	optPairFile                // two words: a name, then a file it reads (jq --rawfile NAME FILE)
	optBad                     // known, never harmless: it runs a program, writes, or reads files it names itself
)

// optTable is a program's known options, harmless and harmful, with how each takes a value.
// A table is written as a spec (see opts) and parsed on its first use, not at process start:
// there are a hundred of them and a daemon or a sandbox launcher may never classify a command
// (docs/performance.md, "P5 — the daemon at rest"). A package-level table is declared as a
// composite literal, &optTable{spec: ...}, which runs no code at start either (core/lazy);
// opts and join make tables inside the tables that are themselves built on first use. A nil
// table knows no option.
type optTable struct {
	// spec is the table's options. parts, when set instead, are tables merged in order, a later
	// table's entry winning.
	spec  string
	parts []*optTable

	once sync.Once
	t    parsedOpts
}

// parsedOpts is a built table.
type parsedOpts struct {
	kinds map[string]optKind
	longs []string // every long name, sorted: the candidates of a prefix
}

// get returns the table, building it on first use.
func (o *optTable) get() *parsedOpts {
	if o == nil {
		return &parsedOpts{}
	}
	o.once.Do(func() { o.t = o.build() })
	return &o.t
}

// build parses the spec or merges the parts.
func (o *optTable) build() parsedOpts {
	if o.parts == nil {
		return parseOpts(o.spec)
	}
	out := parsedOpts{kinds: map[string]optKind{}}
	for _, t := range o.parts {
		for k, v := range t.get().kinds {
			if _, dup := out.kinds[k]; !dup && strings.HasPrefix(k, "--") {
				out.longs = append(out.longs, k)
			}
			out.kinds[k] = v
		}
	}
	slices.Sort(out.longs)
	return out
}

// opts reads a table written as space-separated options: a trailing "=" takes a value, "@"
// a value that is a file it reads, "?" an optional attached value, "+" a name and a value,
// "&" a name and a file it reads; a leading "!" marks a harmful option (listed so that no
// prefix of it resolves to a harmless one).
func opts(spec string) *optTable { return &optTable{spec: spec} }

func parseOpts(spec string) parsedOpts {
	t := parsedOpts{kinds: map[string]optKind{}}
	for _, f := range strings.Fields(spec) {
		bad := strings.HasPrefix(f, "!")
		f = strings.TrimPrefix(f, "!")
		kind := optFlag
		switch f[len(f)-1] {
		case '=':
			kind, f = optValue, f[:len(f)-1]
		case '@':
			kind, f = optFile, f[:len(f)-1]
		case '?':
			kind, f = optMaybe, f[:len(f)-1]
		case '+':
			kind, f = optPair, f[:len(f)-1]
		case '&':
			kind, f = optPairFile, f[:len(f)-1]
		}
		if bad {
			kind = optBad
		}
		t.kinds[f] = kind
		if strings.HasPrefix(f, "--") {
			t.longs = append(t.longs, f)
		}
	}
	slices.Sort(t.longs)
	return t
}

// join merges tables; a later table's entry wins.
func join(ts ...*optTable) *optTable { return &optTable{parts: ts} }

// long resolves a long option name (without "=value") the way getopt_long and git do: an
// exact name, else the one known option it is a prefix of. A prefix of several is refused
// (the program refuses it too, unless they are one option, which Cairn does not assume).
func (o *optTable) long(name string) (string, optKind, bool) {
	t := o.get()
	if k, ok := t.kinds[name]; ok {
		return name, k, true
	}
	var found string
	for _, l := range t.longs {
		if strings.HasPrefix(l, name) {
			if found != "" {
				return "", optBad, false
			}
			found = l
		}
	}
	if found == "" {
		return "", optBad, false
	}
	return found, t.kinds[found], true
}

// operandUse says what a program does with its operands.
type operandUse uint8

const (
	useNone operandUse = iota // names, numbers or text, not files (echo, seq, basename)
	useRead                   // files whose content it reads
	useLook                   // paths it looks at without printing content (ls, stat, du)
)

// program is one read-only program: its options and what its operands are.
type program struct {
	opts *optTable
	use  operandUse
	// pattern: the first operand is a pattern or program, not a file, unless an option in
	// patternOpts supplied one.
	pattern     bool
	patternOpts []string
	// maxOps bounds the operands (uniq's second is its output file); -1 for any number.
	maxOps int
	// digits: -NUM is an option (head -20, git log -5).
	digits bool
	// free: the program reads no options that matter, any word may follow, even one only
	// known at run time (echo, test). Its words are never files.
	free bool
	// check is a further test of the whole argument list.
	check func(args []Word) bool
	// whole: options are whole words with one dash (xxd -cols 8), matched exactly, or by
	// their first letter with the value attached (xxd -c8); never clustered.
	whole bool
}

// parsed is a command line read against a program's table.
type parsed struct {
	ops   []Word   // operands, in order
	files []Word   // values of options that name files it reads
	used  []string // the options, by full name
}

// parseArgs reads args the way getopt_long with argument permutation does. ok is false
// when a word is not known harmless: an unknown or harmful option, an ambiguous prefix, a
// word only known at run time before "--", or a separate value that looks like an option.
func (p program) parseArgs(args []Word) (parsed, bool) {
	var out parsed
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		if a.Dynamic {
			return out, false // $x may be --compress-program=sh
		}
		if t == "--" {
			out.ops = append(out.ops, args[i+1:]...)
			break
		}
		if len(t) < 2 || t[0] != '-' {
			out.ops = append(out.ops, a)
			continue
		}
		if p.digits && isDigits(t[1:]) {
			out.used = append(out.used, "-N")
			continue
		}
		// value takes the value of option name; attached is what followed it in the word.
		value := func(name string, kind optKind, attached string, has bool) bool {
			out.used = append(out.used, name)
			switch kind {
			case optFlag:
				return !has
			case optMaybe:
				return true
			case optBad:
				return false
			case optPair, optPairFile:
				if has || i+2 >= len(args) || !args[i+1].Literal() || !args[i+2].Literal() {
					return false
				}
				if kind == optPairFile {
					out.files = append(out.files, args[i+2])
				}
				i += 2
				return true
			}
			v := Word{Text: attached}
			if !has {
				if i+1 >= len(args) {
					return false
				}
				i++
				v = args[i]
				// A value that looks like an option would be one to the program if Cairn's
				// table were wrong about the option taking a value.
				if v.Dynamic || strings.HasPrefix(v.Text, "-") && !isNumber(v.Text) {
					return false
				}
			}
			if kind == optFile {
				out.files = append(out.files, v)
			}
			return true
		}
		if strings.HasPrefix(t, "--") {
			name, attached, has := strings.Cut(t, "=")
			full, kind, ok := p.opts.long(name)
			if !ok || !value(full, kind, attached, has) {
				return out, false
			}
			continue
		}
		if p.whole {
			if kind, ok := p.opts.get().kinds[t]; ok {
				if !value(t, kind, "", false) {
					return out, false
				}
				continue
			}
			kind, ok := p.opts.get().kinds[t[:2]]
			if !ok || kind != optValue || !value(t[:2], kind, t[2:], true) {
				return out, false
			}
			continue
		}
		// A cluster of short options: -la, -n5, -S 1K.
		for j := 1; j < len(t); j++ {
			name := "-" + t[j:j+1]
			kind, ok := p.opts.get().kinds[name]
			if !ok || kind == optBad {
				return out, false
			}
			if kind == optFlag {
				out.used = append(out.used, name)
				continue
			}
			rest := t[j+1:]
			if !value(name, kind, rest, rest != "" || kind == optMaybe) {
				return out, false
			}
			break
		}
	}
	return out, true
}

// readOnlyArgs reports whether a program accepts args as only reading, and returns them
// parsed.
func (p program) readOnlyArgs(args []Word) (parsed, bool) {
	if p.free {
		return parsed{}, p.check == nil || p.check(args)
	}
	pa, ok := p.parseArgs(args)
	if !ok || p.maxOps >= 0 && len(pa.ops) > p.maxOps {
		return pa, false
	}
	if p.check != nil && !p.check(args) {
		return pa, false
	}
	return pa, true
}

// fileOperands are the operands p reads or looks at, after its pattern if any.
func (p program) fileOperands(pa parsed) []Word {
	ops := pa.ops
	if p.pattern && len(ops) > 0 {
		given := false
		for _, u := range pa.used {
			given = given || slices.Contains(p.patternOpts, u)
		}
		if !given {
			ops = ops[1:]
		}
	}
	return append(append([]Word(nil), pa.files...), ops...)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// isNumber: a negative count is a value (head -n -5), not an option.
func isNumber(s string) bool {
	return isDigits(strings.TrimPrefix(s, "-"))
}
