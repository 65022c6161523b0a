package shellcmd

import (
	"path"
	"strings"
)

// Allowed reports whether every simple command of the line starts with one of prefixes,
// word by word ("npm run" allows `npm run build`, not `npm runx`). A line that writes a file
// through a redirection, hides what it runs or pipes into a shell is never allowed, and
// wrappers that change rights (sudo, doas) are not looked through.
func (s *Script) Allowed(prefixes []string) bool {
	if len(prefixes) == 0 || len(s.Opaque) > 0 || len(s.Writes) > 0 || len(s.ShellPipes) > 0 ||
		len(s.Recursive) > 0 || len(s.RiskyAssigns) > 0 || len(s.Commands) == 0 {
		return false
	}
	for _, c := range s.Commands {
		if c.Wrapper {
			if !neutral(c.Name()) {
				return false
			}
			continue
		}
		ok := false
		for _, p := range prefixes {
			if prefixMatches(c.Words, strings.Fields(p)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func prefixMatches(words []Word, prefix []string) bool {
	if len(prefix) == 0 || len(words) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		w := words[i]
		if !w.Literal() {
			return false
		}
		text := w.Text
		if i == 0 && !strings.Contains(p, "/") {
			text = path.Base(text)
		}
		if text != p {
			return false
		}
	}
	return true
}
