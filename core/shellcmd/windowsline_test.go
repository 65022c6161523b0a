package shellcmd

import (
	"slices"
	"testing"
)

// TestWindowsLines parses lines as a Windows shell would see them, on every platform: the
// backslashes of paths are kept, quoting and operators still count, and a nested bash script
// is still bash. The same lines read as bash lose their backslashes, as bash would.
func TestWindowsLines(t *testing.T) {
	cases := []struct {
		name    string
		line    string
		windows bool
		reads   []string // the read operands' text
		writes  []string // the write targets' text
	}{
		{"drive path", `type C:\Users\me\.env`, true, []string{`C:\Users\me\.env`}, nil},
		{"drive path read by bash", `type C:\Users\me\.env`, false, []string{`C:Usersme.env`}, nil},
		{"relative path", `cat src\config\.env && echo done`, true, []string{`src\config\.env`}, nil},
		{"double quoted with a space", `cat "C:\Program Files\app\key.txt"`, true, []string{`C:\Program Files\app\key.txt`}, nil},
		{"double quoted, trailing backslash", `cat "C:\data\" a.txt`, true, []string{`C:\data\`, "a.txt"}, nil},
		{"single quoted", `cat 'C:\x\y.txt'`, true, []string{`C:\x\y.txt`}, nil},
		{"redirection target", `echo x > .git\hooks\pre-commit`, true, nil, []string{`.git\hooks\pre-commit`}},
		{"nested bash keeps bash escapes", `bash -c "cat my\ notes.txt"`, true, []string{"my notes.txt"}, nil},
		{"escaped space read by bash", `cat my\ notes.txt`, false, []string{"my notes.txt"}, nil},
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
			if !slices.Equal(reads, c.reads) {
				t.Errorf("reads = %q, want %q", reads, c.reads)
			}
			if !slices.Equal(writes, c.writes) {
				t.Errorf("writes = %q, want %q", writes, c.writes)
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
	if len(s.Commands) != 1 || len(s.Commands[0].Words) != 3 {
		t.Fatalf("commands = %+v, want one with three words", s.Commands)
	}
	if got := s.Commands[0].Words[2].Text; got != `\\server\share\b.txt` {
		t.Fatalf("destination = %q, want the UNC path as written", got)
	}
}
