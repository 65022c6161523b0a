package direct

import "strings"

// shellKind is how a shell takes a command line to run.
type shellKind int

const (
	shellPOSIX      shellKind = iota // sh, bash, zsh, Git Bash: -c COMMAND
	shellCmd                         // cmd.exe: /d /s /c "COMMAND"
	shellPowerShell                  // powershell.exe, pwsh: -NoProfile -NonInteractive -Command COMMAND
)

// kindOf tells the kind of shell from its path, whichever separator the path uses: this runs
// on Windows for a configured shell such as `C:\Program Files\PowerShell\7\pwsh.exe`, and its
// cases are tested everywhere.
func kindOf(shell string) shellKind {
	base := shell[strings.LastIndexAny(shell, `/\`)+1:]
	base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	switch base {
	case "cmd":
		return shellCmd
	case "powershell", "pwsh":
		return shellPowerShell
	default:
		return shellPOSIX
	}
}

// cmdLine is the whole Windows command line that runs command in shell. Windows hands a
// program one string, not a list: cmd.exe parses it its own way, so its command goes in raw
// (with /s: the outer quotes are stripped and the rest taken as written), not through the
// argument quoting other programs expect.
func cmdLine(shell, command string) string {
	exe := quoteArg(shell)
	switch kindOf(shell) {
	case shellCmd:
		return exe + ` /d /s /c "` + command + `"`
	case shellPowerShell:
		return exe + " -NoProfile -NonInteractive -Command " + quoteArg(command)
	default:
		return exe + " -c " + quoteArg(command)
	}
}

// quoteArg quotes one argument the way the C runtime (and Go's os/exec on Windows) parses it:
// inside double quotes, backslashes are literal except before a quote, where each must be
// doubled and the quote escaped.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\v\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}
