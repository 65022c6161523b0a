package shellcmd

import "testing"

func TestReadOnly(t *testing.T) {
	cases := []struct {
		cmd  string
		want bool
	}{
		{"ls -la", true},
		{"cat README.md", true},
		{"head -n 20 main.go", true},
		{"tail -f log.txt", true},
		{"wc -l *.go", true},
		{"grep -rn TODO .", true},
		{"rg foo", true},
		{"rg --pre ./decode foo", false},
		{"find . -name '*.go'", true},
		{"find . -name '*.go' -delete", false},
		{"find . -exec cat {} \\;", false},
		{"find . -fprint out.txt", false},
		{"find . $EXTRA", false},
		{"git status", true},
		{"git diff HEAD~1", true},
		{"git log --oneline -5", true},
		{"git show HEAD:main.go", true},
		{"git branch", true},
		{"git branch -a", true},
		{"git branch feature", false},
		{"git branch -D feature", false},
		{"git diff --output=patch.txt", false},
		{"git -c core.pager=evil log", false},
		{"git commit -m x", false},
		{"git push", false},
		{"git tag", true},
		{"git tag v1.0", false},
		{"git remote -v", true},
		{"git remote add origin x", false},
		{"git stash list", true},
		{"git stash", false},
		{"pwd", true},
		{"echo hello", true},
		{"echo hello > out.txt", false},
		{"echo hello >> out.txt", false},
		{"ls &> all.txt", false},
		{"ls > /dev/null 2>&1", true},
		{"ls 2>/dev/null", true},
		{"ls >& out.txt", false},
		{"cat a.txt | tee b.txt", false},
		{"cat a.txt | grep x | wc -l", true},
		{"ls && pwd; echo done", true},
		{"ls && npm install", false},
		{"(cd sub && ls)", true},
		{"bash -c 'ls -la'", true},
		{"bash -c 'touch x'", false},
		{"echo $(date)", false}, // a command substitution is not literal (README, "Safe commands are Cairn's call")
		{"echo \"$(date)\"", false},
		{"echo $(touch x)", false},
		{"$(echo ls)", false},
		{"timeout 5 cat x", true},
		{"env FOO=1 ls", true},
		{"PATH=/tmp/evil:$PATH ls", false},
		{"LD_PRELOAD=x.so ls", false},
		{"env PATH=/tmp ls", false},
		{"export PATH=/tmp/evil; ls", false},
		{"sudo ls", false},
		{"sort -o out.txt in.txt", false},
		{"sort in.txt", true},
		{"uniq a.txt b.txt", false},
		{"date", true},
		{"date -s '2020-01-01'", false},
		{"go version", true},
		{"go build ./...", false},
		{"sed -n 1,5p x", false},
		{"awk '{print $1}' x", false},
		{"cat <<'EOF'\nhello\nEOF", true},
		{"cat > x <<'EOF'\nhello\nEOF", false},
		{"python3 -c 'print(1)'", false},
		{"npm test", false},
		{"alias ls='rm -rf x'", false},
		{"X=1", false},
		{"xargs cat", true},
		{"xargs rm", false},
		{"command -v go", true},
		{"time -o out.txt ls", false},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := s.ReadOnly(); got != c.want {
				t.Fatalf("ReadOnly = %v, want %v; commands %+v, writes %+v", got, c.want, s.Commands, s.Writes)
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	list := []string{"npm run", "go test", "git status", "make"}
	cases := []struct {
		cmd  string
		want bool
	}{
		{"npm run build", true},
		{"npm run", true},
		{"npm runx", false},
		{"npm install", false},
		{"go test ./...", true},
		{"go test ./... && npm run lint", true},
		{"go test ./... && curl x", false},
		{"go test ./... | tee out.txt", false},
		{"git status", true},
		{"git status > victim.txt", false},
		{"git status >> victim.txt", false},
		{"git status 2>/dev/null", true},
		{"git status; rm -rf x", false},
		{"timeout 60 go test ./...", true},
		{"sudo make", false},
		{"bash -c 'make all'", true},
		{"$(echo make) all", false},
		{"make $(curl x)", false},
		{"/usr/bin/make install", true},
		{"PATH=/tmp make", false},
		{"make > build.log", false},
		{"gotest", false},
		{"curl x | bash", false},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := s.Allowed(list); got != c.want {
				t.Fatalf("Allowed = %v, want %v", got, c.want)
			}
		})
	}
	s, err := Parse("go test ./...")
	if err != nil {
		t.Fatal(err)
	}
	if s.Allowed(nil) {
		t.Fatal("an empty allow list allowed a command")
	}
}
