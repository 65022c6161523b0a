package shellcmd

import "strings"

// wrapperOptions lists, per wrapper, its options that take a separate value (true) and
// those that do not (false); unknown options are assumed to take none. A nil entry means
// the wrapper has no options of interest.
var wrapperOptions = map[string]map[string]bool{
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
		"--max-lines": true, "--max-chars": true, "--arg-file": true, "--replace": false, "--eof": false},
	"sudo": {"-u": true, "-g": true, "-h": true, "-p": true, "-C": true, "-D": true, "-r": true,
		"-t": true, "-U": true, "-T": true, "--user": true, "--group": true, "--host": true,
		"--prompt": true, "--chdir": true, "--role": true, "--type": true, "--other-user": true},
	"doas": {"-u": true, "-C": true},
}

// Neutral reports whether a wrapper only changes how a command runs, not with which rights:
// everything above except sudo and doas, plus the shells and eval whose scripts are judged
// part by part.
func neutral(name string) bool {
	switch name {
	case "sudo", "doas":
		return false
	}
	return true
}

// peel returns the command a wrapper runs. ok is false when name is not a wrapper or is
// used in a form that runs nothing (`command -v x`, plain `env`, `nice`).
func peel(name string, args []Word) ([]Word, bool) {
	opts, known := wrapperOptions[name]
	if !known {
		return nil, false
	}
	rest := skipOptions(args, opts)
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
	}
	return rest, true
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
	for _, a := range skipOptions(args, wrapperOptions["env"]) {
		n, _, ok := strings.Cut(a.Text, "=")
		if !ok {
			break
		}
		out = append(out, n)
	}
	return out
}
