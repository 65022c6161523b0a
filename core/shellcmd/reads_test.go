package shellcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ignoreFake blocks paths whose root-relative form equals or lies under an entry, the way
// the workspace's ignore file does for "secrets/" and ".env" rules.
type ignoreFake struct {
	root    string
	entries []string
}

func (f ignoreFake) ignored(abs string) bool {
	rel, err := filepath.Rel(f.root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, e := range f.entries {
		if rel == e || strings.HasPrefix(rel, e+"/") {
			return true
		}
	}
	return false
}

func TestFirstIgnored(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{".env", "secrets/token.txt", "secrets/key.pem", "src/main.go",
		"src/.env.local", "notes.txt", "my secrets.txt", "sub/inner/creds.json", "sub/readme.md"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := ignoreFake{root: root, entries: []string{".env", "secrets", "src/.env.local", "my secrets.txt", "sub/inner"}}

	cases := []struct {
		cmd  string
		want string // root-relative path reported as blocked, "" when the command may run
	}{
		{"cat .env", ".env"},
		{"cat ./.env", ".env"},
		{"cat src/../.env", ".env"},
		{`cat ".env"`, ".env"},
		{"cat '.env'", ".env"},
		{"cat 'my secrets.txt'", "my secrets.txt"},
		{`cat my\ secrets.txt`, "my secrets.txt"},
		{"cat notes.txt", ""},
		{"cat -n .env", ".env"},
		{"head -n 5 secrets/token.txt", "secrets/token.txt"},
		{"tail -c 100 secrets/key.pem", "secrets/key.pem"},
		{"less .env", ".env"},
		{"bat -l sh .env", ".env"},
		{"nl .env", ".env"},
		{"cat secrets/*", "secrets/key.pem"},
		{"cat */token.txt", "secrets/token.txt"},
		{"cat .env*", ".env"},
		{"cat '.env*'", ""},
		{"cat src/*.go", ""},
		{"grep API_KEY .env", ".env"},
		{"grep -rn TODO src", ""},
		{"grep .env notes.txt", ""},
		{"grep -e x -- .env", ".env"},
		{"grep -f .env notes.txt", ".env"},
		{"rg -g '*.go' secret secrets", "secrets"},
		{"sed -n 1p .env", ".env"},
		{"sed -e 1p notes.txt .env", ".env"},
		{"awk '{print}' .env", ".env"},
		{"awk -v x=1 '{print}' notes.txt", ""},
		{"cp .env /tmp/copy", ".env"},
		{"cp notes.txt .env", ""},
		{"mv -t /tmp .env", ".env"},
		{"diff notes.txt .env", ".env"},
		{"strings secrets/key.pem", "secrets/key.pem"},
		{"xxd .env", ".env"},
		{"od -c .env", ".env"},
		{"base64 .env", ".env"},
		{"source .env", ".env"},
		{". ./.env", ".env"},
		{"type .env", ".env"},
		{"Get-Content .env", ".env"},
		{"gc -Path .env", ".env"},
		{"wc -l < .env", ".env"},
		{"cd secrets && cat token.txt", "secrets/token.txt"},
		{"cd sub && cat inner/creds.json", "sub/inner/creds.json"},
		{"cd sub && cat readme.md", ""},
		{"bash -c 'cat .env'", ".env"},
		{"echo $(cat .env)", ".env"},
		{"ls && cat secrets/token.txt | head", "secrets/token.txt"},
		{"timeout 5 cat .env", ".env"},
		{"cat $FILE", ""},
		{"echo .env", ""},
		{"python3 read.py .env", ""},
		{"cat " + filepath.Join(root, ".env"), ".env"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			abs, blocked := s.FirstIgnored(root, fake.ignored)
			got := ""
			if blocked {
				rel, err := filepath.Rel(root, abs)
				if err != nil {
					t.Fatal(err)
				}
				got = filepath.ToSlash(rel)
			}
			if got != c.want {
				t.Fatalf("FirstIgnored = %q, want %q (reads %+v)", got, c.want, s.Reads())
			}
		})
	}
}
