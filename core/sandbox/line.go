package sandbox

import "strings"

// Line returns the launcher line, quoted for a POSIX shell, that runs command with shell -c
// under p: what a terminal Cairn does not start itself (the editor's) is given to run.
func Line(p Policy, shell, command string) (string, error) {
	argv, err := Argv(p, []string{shell, "-c", command})
	if err != nil {
		return "", err
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = Quote(a)
	}
	return strings.Join(quoted, " "), nil
}

// Quote quotes s for a POSIX shell: as it is when it holds only safe characters, else in
// single quotes.
func Quote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
