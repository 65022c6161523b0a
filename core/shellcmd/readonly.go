package shellcmd

import "strings"

// ReadOnly reports whether Cairn's own classification accepts every part of the line as
// only reading: no redirection writes a file, nothing is hidden or piped into a shell, no
// variable changes which program runs, and every simple command is a known reader used in a
// reading form.
func (s *Script) ReadOnly() bool {
	if len(s.Opaque) > 0 || len(s.Writes) > 0 || len(s.ShellPipes) > 0 || len(s.Recursive) > 0 ||
		len(s.RiskyAssigns) > 0 || len(s.Commands) == 0 {
		return false
	}
	for _, c := range s.Commands {
		if c.Wrapper {
			if !neutral(c.Name()) || c.Name() == "time" && hasAny(c.Words[1:], "-o", "--output") {
				return false
			}
			continue
		}
		if !readOnlyCommand(c) {
			return false
		}
	}
	return true
}

// readers only read whatever their arguments are.
var readers = set("ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo",
	"printf", "which", "whoami", "id", "uname", "file", "stat", "du", "df", "basename", "dirname",
	"realpath", "readlink", "cut", "tr", "diff", "cmp", "comm", "nl", "tac", "rev", "true",
	"false", "test", "[", "printenv", "type", "cd", "column", "sha1sum", "sha256sum",
	"sha512sum", "md5sum", "cksum", "strings", "od", "jq", "tty", "uptime", "ps", "groups",
	"nproc", "seq", "sleep", "bat", "base64", "locale", "env", "ag", "command", "nice")

// careful are readers only in some forms; a word known only at run time could be the
// form that writes, so they also need every argument literal.
var careful = map[string]func(args []Word) bool{
	"find": func(a []Word) bool {
		return !hasAny(a, "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0",
			"-fprintf", "-fls")
	},
	"rg":       func(a []Word) bool { return !hasExact(a, "--pre") && !hasPrefix(a, "--pre=") },
	"sort":     func(a []Word) bool { return !hasAny(a, "-o", "--output") && !hasPrefix(a, "-o") },
	"tree":     func(a []Word) bool { return !hasAny(a, "-o") },
	"date":     func(a []Word) bool { return !hasAny(a, "-s", "--set") },
	"uniq":     func(a []Word) bool { return len(operands(a)) <= 1 },
	"xxd":      func(a []Word) bool { return len(operands(a)) <= 1 },
	"hostname": func(a []Word) bool { return len(operands(a)) == 0 },
	"git":      gitReadOnly,
	"go": func(a []Word) bool {
		if len(a) == 0 {
			return false
		}
		switch a[0].Text {
		case "version", "list", "doc":
			return true
		case "env":
			return !hasAny(a[1:], "-w", "-u")
		}
		return false
	},
}

func readOnlyCommand(c Command) bool {
	name := c.Name()
	args := c.Words[1:]
	if readers[name] {
		return true
	}
	check, ok := careful[name]
	if !ok {
		return false
	}
	for _, a := range args {
		if a.Dynamic {
			return false
		}
	}
	return check(args)
}

// gitReadOnly accepts git subcommands that only show things, in their showing forms.
func gitReadOnly(args []Word) bool {
	for _, a := range args {
		if a.Text == "-c" || strings.HasPrefix(a.Text, "--exec-path") || strings.HasPrefix(a.Text, "--config-env") {
			return false
		}
	}
	args = gitArgs(args)
	if len(args) == 0 {
		return false
	}
	sub, rest := args[0].Text, args[1:]
	switch sub {
	case "status", "rev-parse", "ls-files", "ls-tree", "blame", "describe", "shortlog",
		"cat-file", "show-ref", "merge-base", "name-rev", "for-each-ref", "count-objects",
		"version", "whatchanged":
		return true
	case "diff", "log", "show":
		return !hasPrefix(rest, "--output") && !hasAny(rest, "--ext-diff")
	case "grep":
		return !hasPrefix(rest, "-O") && !hasPrefix(rest, "--open-files-in-pager")
	case "branch":
		if hasAny(rest, "-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "--delete", "--move",
			"--copy", "--force", "--unset-upstream", "--edit-description", "--track", "--no-track") ||
			hasPrefix(rest, "--set-upstream-to") {
			return false
		}
		return len(operands(rest)) == 0 || hasAny(rest, "-l", "--list", "-a", "-r", "--contains", "--merged", "--no-merged")
	case "tag":
		if len(operands(rest)) > 0 && !hasAny(rest, "-l", "--list") {
			return false
		}
		return !hasAny(rest, "-d", "-a", "-s", "-u", "-f", "-m", "-F", "-e", "--delete", "--annotate",
			"--sign", "--force", "--edit")
	case "remote":
		return len(rest) == 0 || hasAny(rest, "-v", "--verbose") && len(operands(rest)) == 0 ||
			len(rest) > 0 && (rest[0].Text == "show" || rest[0].Text == "get-url")
	case "stash", "worktree", "reflog":
		return len(rest) > 0 && (rest[0].Text == "list" || rest[0].Text == "show") || sub == "reflog" && len(rest) == 0
	}
	return false
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func hasAny(args []Word, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a.Text == o {
				return true
			}
			// A short option inside a cluster: -fd holds -d.
			if len(o) == 2 && o[0] == '-' && len(a.Text) > 2 && a.Text[0] == '-' && a.Text[1] != '-' &&
				strings.IndexByte(a.Text[1:], o[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

func hasExact(args []Word, s string) bool {
	for _, a := range args {
		if a.Text == s {
			return true
		}
	}
	return false
}

func hasPrefix(args []Word, p string) bool {
	for _, a := range args {
		if strings.HasPrefix(a.Text, p) {
			return true
		}
	}
	return false
}

// operands are the arguments that are not options.
func operands(args []Word) []Word {
	var out []Word
	ended := false
	for _, a := range args {
		switch {
		case ended || !strings.HasPrefix(a.Text, "-") || a.Text == "-":
			out = append(out, a)
		case a.Text == "--":
			ended = true
		}
	}
	return out
}
