package shellcmd

import (
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// wrapperOptions lists, per wrapper, its options that take a separate value (true) and
// those that do not (false); unknown options are assumed to take none. A nil entry means
// the wrapper has no options of interest.
var wrapperOptions = lazy.Value[map[string]map[string]bool]{New: func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"env": {"-u": true, "--unset": true, "-C": true, "--chdir": true, "-i": false, "-0": false,
			"--ignore-environment": false, "--null": false, "-v": false, "--debug": false},
		"timeout": {"-s": true, "--signal": true, "-k": true, "--kill-after": true},
		"nice":    {"-n": true, "--adjustment": true},
		"nohup":   nil,
		"setsid":  nil,
		"builtin": nil,
		"busybox": nil,
		"time":    {"-f": true, "--format": true, "-o": true, "--output": true},
		"command": nil,
		"exec":    {"-a": true},
		"stdbuf":  {"-i": true, "-o": true, "-e": true, "--input": true, "--output": true, "--error": true},
		"xargs": {"-I": true, "-n": true, "-P": true, "-d": true, "-L": true, "-s": true, "-E": true,
			"-e": false, "-a": true, "--max-args": true, "--max-procs": true, "--delimiter": true,
			"--max-lines": true, "--max-chars": true, "--arg-file": true, "--replace": false, "--eof": false,
			"--process-slot-var": true},
		"sudo": {"-u": true, "-g": true, "-h": true, "-p": true, "-C": true, "-D": true, "-r": true,
			"-t": true, "-U": true, "-T": true, "--user": true, "--group": true, "--host": true,
			"--prompt": true, "--chdir": true, "--role": true, "--type": true, "--other-user": true},
		"doas": {"-u": true, "-C": true},
		// ionice [-c class] [-n level] [-t] command; -p, -P and -u act on running processes.
		"ionice": {"-c": true, "--class": true, "-n": true, "--classdata": true, "-p": true,
			"--pid": true, "-P": true, "--pgid": true, "-u": true, "--uid": true, "-t": false, "--ignore": false},
		// taskset [-a] [-c] mask command; -p acts on a running process.
		"taskset": {"-a": false, "--all-tasks": false, "-c": false, "--cpu-list": false, "-p": false, "--pid": false},
		// chrt [policy] priority command; -p acts on a running process, -m only prints.
		"chrt": {"-T": true, "--sched-runtime": true, "-P": true, "--sched-period": true,
			"-D": true, "--sched-deadline": true},
		// flock [-w secs] lockfile command (flock … -c string is a shell script, see shellOption).
		"flock": {"-w": true, "--wait": true, "--timeout": true, "-E": true, "--conflict-exit-code": true},
		// numactl [policy options] command; --show and --hardware only print.
		"numactl": {"-i": true, "--interleave": true, "-p": true, "--preferred": true, "-m": true,
			"--membind": true, "-N": true, "--cpunodebind": true, "-C": true, "--physcpubind": true,
			"-P": true, "--preferred-many": true, "-w": true, "--weighted-interleave": true,
			"-S": true, "--shm": true, "-f": true, "--file": true, "-L": true, "--length": true,
			"-o": true, "--offset": true, "-I": true, "--shmid": true},
	}
}}

// Neutral reports whether a wrapper only changes how a command runs, not with which rights:
// everything above except sudo and doas, plus the shells and eval whose scripts are judged
// part by part. script (which records the session in a file) and flock (which creates its
// lock file) write files themselves, so they are not neutral either.
func neutral(name string) bool {
	switch name {
	case "sudo", "doas", "script", "flock":
		return false
	}
	return true
}

// peel returns the command a wrapper runs. ok is false when name is not a wrapper or is
// used in a form that runs nothing (`command -v x`, plain `env`, `nice`).
func peel(name string, args []Word) ([]Word, bool) {
	if _, known := wrapperOptions.Get()[name]; !known {
		return nil, false
	}
	_, rest := ownOptions(name, args)
	switch name {
	case "command":
		for _, a := range args {
			if a.Text == "-v" || a.Text == "-V" {
				return nil, false
			}
		}
	case "env":
		for len(rest) > 0 && !rest[0].Dynamic && strings.Contains(rest[0].Text, "=") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return nil, false
		}
	case "timeout":
		if len(rest) > 0 {
			rest = rest[1:] // the duration
		}
	case "nice":
		if len(rest) == 0 {
			return nil, false
		}
	case "xargs":
		if len(rest) == 0 {
			return []Word{{Text: "echo"}}, true
		}
	case "ionice":
		if hasWord(args, "-p", "--pid", "-P", "--pgid", "-u", "--uid") || len(rest) == 0 {
			return nil, false
		}
	case "taskset":
		if shortFlag(args, 'p') || hasWord(args, "--pid") || len(rest) < 2 {
			return nil, false
		}
		rest = rest[1:] // the mask or CPU list
	case "chrt":
		if shortFlag(args, 'p') || shortFlag(args, 'm') || hasWord(args, "--pid", "--max") || len(rest) == 0 {
			return nil, false
		}
		if strings.Trim(rest[0].Text, "0123456789") == "" && !rest[0].Dynamic {
			rest = rest[1:] // the priority
		}
	case "flock":
		if len(rest) < 2 {
			return nil, false // flock fd: nothing runs
		}
		rest = rest[1:] // the lock file
	case "numactl":
		if hasWord(args, "-s", "--show", "-H", "--hardware") {
			return nil, false
		}
	}
	return rest, true
}

// shortFlag reports whether a cluster of short options among args (-p, -ap) holds letter.
func shortFlag(args []Word, letter byte) bool {
	for _, a := range args {
		t := a.Text
		if t == "--" {
			return false
		}
		if len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.IndexByte(t[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// shellOption returns the string that `flock … -c STRING` and `script -c STRING` hand to a
// shell.
func shellOption(name string, args []Word) (Word, bool) {
	if name != "flock" && name != "script" {
		return Word{}, false
	}
	for i, a := range args {
		t := a.Text
		switch {
		case t == "--":
			return Word{}, false
		case t == "--command" || t == "-c" ||
			len(t) > 2 && t[0] == '-' && t[1] != '-' && t[len(t)-1] == 'c' && strings.Trim(t[1:], "aefqkv") == "c":
			if i+1 < len(args) {
				return args[i+1], true
			}
		case strings.HasPrefix(t, "--command="):
			w := a
			w.Text = strings.TrimPrefix(t, "--command=")
			return w, true
		}
	}
	return Word{}, false
}

// xargsReplace returns the replace string of `xargs -I R` (`-i` and `--replace` alone mean
// {}), which xargs swaps for each input item.
func xargsReplace(args []Word) (string, bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			return "", false
		case t == "-I" && i+1 < len(args):
			return args[i+1].Text, true
		case strings.HasPrefix(t, "-I"):
			return t[2:], true
		case t == "-i" || t == "--replace":
			return "{}", true
		case strings.HasPrefix(t, "-i"):
			return t[2:], true
		case strings.HasPrefix(t, "--replace="):
			return strings.TrimPrefix(t, "--replace="), true
		case len(t) == 0 || t[0] != '-':
			return "", false
		}
	}
	return "", false
}

// ownOptions splits a wrapper's words into its own options and the command it runs. For a
// wrapper with a table of its options (wrapperOptionTables) the split follows the table, long
// options in any unique prefix and clusters of short ones included (`xargs --arg F cmd`,
// `xargs -0a F cmd`); for the others it follows wrapperOptions (see skipOptions).
func ownOptions(name string, args []Word) (own, rest []Word) {
	p, ok := wrapperOptionTables.Get()[name]
	if !ok {
		rest = skipOptions(args, wrapperOptions.Get()[name])
		return args[:len(args)-len(rest)], rest
	}
	// A harmful option is listed without its value: wrapperOptions says whether it takes one.
	takes := func(opt string, k optKind) bool {
		return k == optValue || k == optFile || k == optBad && wrapperOptions.Get()[name][opt]
	}
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case args[i].Dynamic || len(t) < 2 || t[0] != '-':
			return args[:i], args[i:]
		case t == "--":
			return args[:i+1], args[i+1:]
		case strings.HasPrefix(t, "--"):
			long, _, has := strings.Cut(t, "=")
			if full, k, ok := p.opts.long(long); ok && takes(full, k) && !has {
				i++
			}
		default:
			for j := 1; j < len(t); j++ {
				k, ok := p.opts.get().kinds["-"+t[j:j+1]]
				if ok && k == optMaybe {
					break
				}
				if ok && takes("-"+t[j:j+1], k) {
					if j == len(t)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return args, nil
}

// skipOptions drops leading options (and the values of those that take one) up to the
// first operand or "--".
func skipOptions(args []Word, opts map[string]bool) []Word {
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case args[i].Dynamic:
			return args[i:]
		case t == "--":
			return args[i+1:]
		case len(t) < 2 || t[0] != '-':
			return args[i:]
		case strings.HasPrefix(t, "--"):
			if name, _, hasValue := strings.Cut(t, "="); !hasValue && opts[name] {
				i++
			}
		case opts[t[:2]] && len(t) == 2:
			i++
		}
	}
	return nil
}

// envSplitString returns the string given to `env -S`, which env splits into a command.
func envSplitString(args []Word) (Word, bool) {
	for i, a := range args {
		switch {
		case a.Text == "-S" || a.Text == "--split-string":
			if i+1 < len(args) {
				return args[i+1], true
			}
		case strings.HasPrefix(a.Text, "--split-string="):
			w := a
			w.Text = strings.TrimPrefix(a.Text, "--split-string=")
			return w, true
		case strings.HasPrefix(a.Text, "-S") && len(a.Text) > 2:
			w := a
			w.Text = a.Text[2:]
			return w, true
		case !strings.HasPrefix(a.Text, "-"):
			return Word{}, false
		}
	}
	return Word{}, false
}

// envAssigns returns the variable names `env NAME=value cmd` sets.
func envAssigns(name string, args []Word) []string {
	if name != "env" {
		return nil
	}
	var out []string
	for _, a := range skipOptions(args, wrapperOptions.Get()["env"]) {
		n, _, ok := strings.Cut(a.Text, "=")
		if !ok {
			break
		}
		out = append(out, n)
	}
	return out
}

// hasWord reports whether one of args is exactly one of words.
func hasWord(args []Word, words ...string) bool {
	for _, a := range args {
		for _, w := range words {
			if a.Text == w {
				return true
			}
		}
	}
	return false
}
