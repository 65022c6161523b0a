package shellcmd

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestWindowsLines parses lines as they are parsed on Windows, on every platform: the
// backslashes of paths are kept (cmd.exe, PowerShell), and the bash reading (Git Bash) is
// there too, so both are checked against the ignore file, the deny list and the protected
// paths. Read as bash only, a line loses its backslashes, as bash would.
func TestWindowsLines(t *testing.T) {
	cases := []struct {
		name    string
		line    string
		windows bool
		reads   []string // read operands that must be found
		writes  []string // redirection targets that must be found
		absent  []string // read operands that must not be found
	}{
		{name: "drive path", line: `type C:\Users\me\.env`, windows: true,
			reads: []string{`C:\Users\me\.env`, `C:Usersme.env`}},
		{name: "drive path read by bash", line: `type C:\Users\me\.env`,
			reads: []string{`C:Usersme.env`}, absent: []string{`C:\Users\me\.env`}},
		{name: "relative path", line: `cat src\config\.env && echo done`, windows: true,
			reads: []string{`src\config\.env`}},
		{name: "double quoted with a space", line: `cat "C:\Program Files\app\key.txt"`, windows: true,
			reads: []string{`C:\Program Files\app\key.txt`}},
		{name: "trailing backslash in quotes: no bash reading", line: `cat "C:\data\" a.txt`, windows: true,
			reads: []string{`C:\data\`, "a.txt"}},
		{name: "single quoted", line: `cat 'C:\x\y.txt'`, windows: true,
			reads: []string{`C:\x\y.txt`}},
		{name: "redirection target", line: `echo x > .git\hooks\pre-commit`, windows: true,
			writes: []string{`.git\hooks\pre-commit`}},
		{name: "escaped space: the bash reading", line: `cat my\ notes.txt`, windows: true,
			reads: []string{`my\`, "notes.txt", "my notes.txt"}},
		{name: "nested bash is bash", line: `bash -c "cat my\ notes.txt"`, windows: true,
			reads: []string{"my notes.txt"}},
		{name: "no backslash, one reading", line: `cat a.txt`, windows: true,
			reads: []string{"a.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := parse(c.line, c.windows)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var reads, writes []string
			for _, o := range s.Reads() {
				reads = append(reads, o.Path.Text)
			}
			for _, w := range s.Writes {
				writes = append(writes, w.Text)
			}
			for _, r := range c.reads {
				if !slices.Contains(reads, r) {
					t.Errorf("reads = %q, want %q among them", reads, r)
				}
			}
			for _, r := range c.absent {
				if slices.Contains(reads, r) {
					t.Errorf("reads = %q, want no %q", reads, r)
				}
			}
			for _, w := range c.writes {
				if !slices.Contains(writes, w) {
					t.Errorf("writes = %q, want %q among them", writes, w)
				}
			}
			if !strings.Contains(c.line, `\`) && len(reads) != len(c.reads) {
				t.Errorf("reads = %q: a line without backslashes has one reading", reads)
			}
		})
	}
}

// TestWindowsLinesPessimistic checks that a Windows line is denied, or not read-only, when
// either reading says so: `\rm` is rm to Git Bash.
func TestWindowsLinesPessimistic(t *testing.T) {
	cases := []struct {
		line     string
		denied   bool
		readOnly bool
	}{
		{`\rm -rf x`, true, false},
		{`r\m -rf x`, true, false},
		{`rm -rf C:\work\x`, true, false},
		{`type C:\work\notes.txt`, false, true},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			s, err := parse(c.line, true)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if _, denied := s.Denied([]string{"rm -rf"}); denied != c.denied {
				t.Errorf("denied = %v, want %v", denied, c.denied)
			}
			if got := s.ReadOnly(); got != c.readOnly {
				t.Errorf("read-only = %v, want %v", got, c.readOnly)
			}
		})
	}
}

// TestWindowsLineWords checks the words of a UNC copy: both backslashes of the share survive.
func TestWindowsLineWords(t *testing.T) {
	s, err := parse(`copy a.txt \\server\share\b.txt`, true)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if len(s.Commands) == 0 || len(s.Commands[0].Words) != 3 {
		t.Fatalf("commands = %+v, want the first with three words", s.Commands)
	}
	if got := s.Commands[0].Words[2].Text; got != `\\server\share\b.txt` {
		t.Fatalf("destination = %q, want the UNC path as written", got)
	}
}

// TestWindowsLineTooDeep: nesting past the limit is refused in either reading.
func TestWindowsLineTooDeep(t *testing.T) {
	line := "echo x"
	for range maxDepth + 2 {
		line = "bash -c " + shellQuote(line)
	}
	if _, err := parse(line, true); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("err = %v, want ErrTooDeep", err)
	}
}

func shellQuote(s string) string { return `'` + strings.ReplaceAll(s, `'`, `'\''`) + `'` }

// TestWindowsCommandNames: on Windows a program runs whatever the case of its name, with or
// without its extension and from any folder, so the deny list and the read-only rules see
// `RM.EXE`, `C:\Git\bin\git.exe` and `git.cmd` as rm and git. On Unix those names stay as
// written (no such programs there).
func TestWindowsCommandNames(t *testing.T) {
	deny := []string{"rm -rf", "git push --force"}
	cases := []struct {
		line     string
		windows  bool
		denied   bool
		readOnly bool
	}{
		{`rm.exe -rf x`, true, true, false},
		{`RM -rf x`, true, true, false},
		{`C:\Git\usr\bin\rm.exe -rf x`, true, true, false},
		{`"C:\Program Files\Git\cmd\GIT.EXE" push --force`, true, true, false},
		{`git.cmd push --force origin main`, true, true, false},
		{`C:/tools/git.exe push --force`, true, true, false},
		{`C:/Git/bin/git.exe status`, true, false, true},
		// Git Bash reads the backslashes away: not a name known to be read-only.
		{`C:\Git\bin\git.exe status`, true, false, false},
		{`TYPE notes.txt`, true, false, true},
		{`.exe -rf x`, true, false, false},
		{`RM -rf x`, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			s, err := parse(c.line, c.windows)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if _, denied := s.Denied(deny); denied != c.denied {
				t.Errorf("denied = %v, want %v (names %q)", denied, c.denied, names(s))
			}
			if got := s.ReadOnly(); got != c.readOnly {
				t.Errorf("read-only = %v, want %v (names %q)", got, c.readOnly, names(s))
			}
		})
	}
}

func names(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, c.Name())
	}
	return out
}
