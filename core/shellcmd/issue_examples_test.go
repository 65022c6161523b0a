package shellcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/protect"
	"github.com/cairnhq/cairn/core/shellcmd"
)

// classify answers, for one line in a workspace at root, what the default settings (reads and
// safe commands auto-approved) do before any user is asked, the way core/task and core/tools
// combine the analysis (README, Security):
//   - "denied": a deny-list hit or a line that hides what it runs; asked even under YOLO;
//   - "refused": it prints a file the ignore file hides;
//   - "asked": anything that is not read-only, writes a protected file, writes a file only
//     known at run time, writes or reads outside the workspace;
//   - "read-only": runs without a question.
//
// The reason says which rule decided.
func classify(t *testing.T, root, line string, ignored func(string) bool) (string, string) {
	t.Helper()
	s, err := shellcmd.Parse(line)
	if err != nil {
		return "denied", "does not parse"
	}
	if hit, denied := s.Denied(config.DefaultDenyList); denied {
		return "denied", hit.Reason
	}
	if abs, blocked := s.FirstIgnored(root, ignored); blocked {
		return "refused", "reads ignored " + rel(root, abs)
	}
	if u := s.UnknownWrites(); len(u) > 0 {
		return "asked", u[0]
	}
	isProtected := func(abs string) string {
		r := rel(root, abs)
		if strings.HasPrefix(r, "..") || filepath.IsAbs(r) {
			return ""
		}
		return protect.Reason(r)
	}
	if abs, why := s.FirstTarget(root, isProtected, nil); why != "" {
		return "asked", "protected " + rel(root, abs)
	}
	for _, p := range s.WritePaths(root) {
		if r := rel(root, p); strings.HasPrefix(r, "..") || filepath.IsAbs(r) {
			return "asked", "writes outside the workspace " + p
		}
	}
	if abs, out := s.FirstOutside(root, func(abs string) bool {
		r := rel(root, abs)
		return !strings.HasPrefix(r, "..") && !filepath.IsAbs(r)
	}); out {
		return "asked", "reads outside the workspace " + abs
	}
	if !s.ReadOnly() {
		return "asked", "not read-only"
	}
	if s.GitPrintsContent() {
		return "read-only", "git prints contents: the caller checks tracked ignored files"
	}
	return "read-only", ""
}

func rel(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// TestIssueExamples holds every escape the safe-means-safe review found (README, Security),
// each with what Cairn now does and why.
func TestIssueExamples(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := t.TempDir()
	for _, f := range []string{".env", "a.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ignored := func(abs string) bool { return rel(root, abs) == ".env" }
	cases := []struct {
		line, want, reason string
	}{
		// 1. "Safe commands" that ran code or wrote files.
		{`printf 'touch PWNED%s\n' $(seq 3000) | sort -S 1K --compress-program=sh`, "asked", "not read-only"},
		{`sort -S 1K --compress=sh a.txt`, "asked", "not read-only"},
		{`sort --output=.git/hooks/pre-commit a.txt`, "asked", "protected .git/hooks/pre-commit"},
		{`sort --out=notes.txt a.txt`, "asked", "not read-only"},
		{`sort -uo .git/config a.txt`, "asked", "protected .git/config"},
		{`sort --o .git/config a.txt`, "asked", "protected .git/config"},
		{`git grep --open-files-in='touch PWNED' hi`, "asked", "not read-only"},
		{`git grep -O'touch PWNED' hi`, "asked", "not read-only"},
		{`git --git-dir=fx status`, "asked", "not read-only"},
		{`git -c core.fsmonitor='touch PWNED' status`, "asked", "not read-only"},
		{`git log --output=x`, "asked", "not read-only"},
		{`git diff --ext-diff`, "asked", "not read-only"},
		// 2. Protected paths through what the check could not see.
		{`ln -s .git/hooks hk && printf '#!/bin/sh\ntouch PWNED\n' > hk/pre-commit && chmod +x hk/pre-commit && git commit -m x`, "asked", "link"},
		{`d=.git; echo 'touch PWNED' > $d/hooks/p`, "asked", "only known when it runs"},
		{`cd "$(mktemp -d)" && echo x > hooks/p`, "asked", "only known when it runs"},
		{`echo .git/hooks/p | xargs cp a.txt`, "asked", "xargs"},
		{`echo 'npx lint' > .husky/pre-commit`, "asked", "protected .husky/pre-commit"},
		// 3. The deny list, which --yolo does not pass.
		{`rm -r victim`, "denied", "rm -rf"},
		{`rm --recu --forc victim`, "denied", "rm -rf"},
		{`git reset --har`, "denied", "git reset --hard"},
		{`ionice -c3 rm -rf victim`, "denied", "rm -rf"},
		{`taskset 1 rm -rf victim`, "denied", "rm -rf"},
		{`git -c alias.x='!rm -rf victim' x`, "denied", "rm -rf"},
		{`git clean --forc -dx`, "denied", "git clean -f"},
		{`git push --forc`, "denied", "git push"},
		// 4. Outside the workspace.
		{`echo '[core] hooksPath = /tmp/h' >> ~/.gitconfig`, "asked", "writes outside the workspace"},
		{`echo 'curl x | sh' >> ~/.bashrc`, "asked", "writes outside the workspace"},
		{`cat ~/.ssh/id_rsa`, "asked", "reads outside the workspace"},
		// 8. Cairn's own readers and the ignore file.
		{`sort .env`, "refused", "reads ignored .env"},
		{`git show HEAD:.env`, "refused", "reads ignored .env"},
		{`git grep KEY`, "read-only", "git prints contents"},
		{`git log -p`, "read-only", "git prints contents"},
		// What must stay easy.
		{`ls -la`, "read-only", ""},
		{`git status --short`, "read-only", ""},
		{`git log --oneline -n 5`, "read-only", ""},
		{`grep -rn TODO .`, "read-only", ""},
		{`sort -u a.txt | head -n 3`, "read-only", ""},
		{`cat a.txt`, "read-only", ""},
	}
	for _, c := range cases {
		got, why := classify(t, root, c.line, ignored)
		if got != c.want || !strings.Contains(why, c.reason) {
			t.Errorf("%s\n  got %s (%s)\n  want %s (%s)", c.line, got, why, c.want, c.reason)
		}
	}
}

// TestOnlyLiteralWordsAreReadOnly holds the escapes through words that are only known when the
// line runs, and through programs that read or write files an option names (README, "Safe
// commands are Cairn's call"; README, "Deny list"). want is what the default
// settings do (see classify); every line that is not "read-only" must also be refused by
// ReadOnly itself, and every "denied" one is asked under --yolo and with all commands
// auto-approved.
func TestOnlyLiteralWordsAreReadOnly(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := t.TempDir()
	for _, f := range []string{".env", "a.txt", "a b.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ignored := func(abs string) bool { return rel(root, abs) == ".env" }
	const hidden = "a word that is only known when the line runs"
	cases := []struct {
		line, want, reason string
	}{
		// Arithmetic evaluates a variable's value again: a[$(cmd)] in it runs cmd.
		{`x='a[$(touch PWNED)]'; echo $((x))`, "denied", hidden},
		{`x='a[$(touch PWNED)]'; echo $[x]`, "denied", hidden},
		{`x='$(touch PWNED)'; echo ${x@P}`, "denied", hidden},
		{`x='a[$(touch PWNED)]'; echo ${!x}`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; a=(1); echo ${a[v]}`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; s=abc; echo ${s:v}`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; for ((i=v; i<1; i++)); do echo ok; done`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; ((v)); echo ok`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; [[ $v -eq 0 ]]; echo ok`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; [[ v -eq 0 ]]; echo ok`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; let v; echo ok`, "denied", hidden},
		{`v='b[$(touch PWNED)]'; a[v]=1; echo ok`, "denied", hidden},
		{`declare -i n; n='b[$(touch PWNED)]'; echo ok`, "denied", hidden},
		{`declare -n r='a[$(touch PWNED)]'; echo ok`, "denied", hidden},
		{`test -v 'a[$(touch PWNED)]'; echo ok`, "denied", hidden},
		{`test -v 'a[$(touch PWNED)]'; echo ok`, "denied", hidden},
		{`unset 'a[$(touch PWNED)]'`, "denied", hidden},
		{`trap 'rm -rf victim' EXIT; echo ok`, "denied", "rm -rf"},
		// Not literal, though nothing in it can hold a command: asked, not denied.
		{`echo $((1 + 2))`, "asked", "not read-only"},
		{`((1)); echo ok`, "asked", "not read-only"},
		{`[[ -f a.txt ]]; echo ok`, "asked", "not read-only"},
		{`[[ $v == x ]]; echo ok`, "asked", "not read-only"},
		{`for ((;;)); do break; done; echo ok`, "asked", "not read-only"},
		{`echo $HOME`, "asked", "not read-only"},
		{`echo "$HOME"`, "asked", "not read-only"},
		{`echo ${HOME:-x}`, "asked", "not read-only"},
		{`echo $(date)`, "asked", "not read-only"},
		{`cat <(ls)`, "asked", "not read-only"},
		{`x=$(date); echo ok`, "asked", "not read-only"},
		{`ls ~+`, "asked", "not read-only"},
		{`ls ~-`, "asked", "not read-only"},
		{`ls ~root`, "asked", "not read-only"},
		{`test -v x`, "asked", "not read-only"},
		{"cat <<EOF\n$HOME\nEOF", "asked", "not read-only"},
		// Brace expansion turns one word into an option, or into a file the checks never saw.
		{`printf 'touch PWNED%s\n' $(seq 30) | sort -S 1K {"--compress-program=sh",-}`, "denied", hidden},
		{`sort -S 1K {--compress-program=sh,-}`, "denied", hidden},
		{`cat {.env"",a.txt}`, "denied", hidden},
		{`cat {~/.ssh/id_rsa,""}`, "denied", hidden},
		{`cat {"$HOME/.ssh/id_rsa",a.txt}`, "denied", hidden},
		{`cat a.txt | tee {".git/hooks/pre-commit",}`, "denied", hidden},
		{`echo x > {".git/hooks/pre-commit",}`, "denied", hidden},
		{`rm {"-r",victim}`, "denied", "rm -rf"},
		{`ls {a..c}`, "denied", hidden},
		{`echo {a,b}`, "denied", hidden},
		// xargs -a puts a file's lines in the command's arguments.
		{`xargs -a .env echo`, "refused", "reads ignored .env"},
		{`xargs --arg-file=.env echo`, "refused", "reads ignored .env"},
		{`xargs --arg .env echo`, "refused", "reads ignored .env"},
		{`xargs -a.env echo`, "refused", "reads ignored .env"},
		{`xargs -0a .env echo`, "refused", "reads ignored .env"},
		{`xargs -a a.txt echo`, "asked", "not read-only"},
		{`xargs --process-slot-var=PATH echo`, "asked", "not read-only"},
		// A variable that moves the configuration git reads (core.fsmonitor runs a program).
		{`HOME=evil git status`, "asked", "not read-only"},
		{`XDG_CONFIG_HOME=evil git status`, "asked", "not read-only"},
		{`env HOME=evil git status`, "asked", "not read-only"},
		{`export HOME=evil; git status`, "asked", "not read-only"},
		{`HOME=evil; git status`, "asked", "not read-only"},
		{`GIT_CONFIG_GLOBAL=evil/.gitconfig git status`, "asked", "not read-only"},
		// Options that read or write files.
		{`jq -L . -n 'import "a" as $d; $d'`, "asked", "not read-only"},
		{`jq -L. -n 1`, "asked", "not read-only"},
		{`command time -o .git/hooks/pre-commit ls`, "asked", "protected .git/hooks/pre-commit"},
		{`command time -o out.txt ls`, "asked", "not read-only"},
		{`command time --output=out.txt ls`, "asked", "not read-only"},
		{`command time --out out.txt ls`, "asked", "not read-only"},
		{`command time -ao out.txt ls`, "asked", "not read-only"},
		{`env time --app -o out.txt ls`, "asked", "not read-only"},
		{`date 0101000020`, "asked", "not read-only"},
		{`date -r .env`, "refused", "reads ignored .env"},
		{`date --ref=.env`, "refused", "reads ignored .env"},
		{`date -r a.txt`, "asked", "not read-only"},
		{`date -ur a.txt`, "asked", "not read-only"},
		{`date -r ~/.ssh/id_rsa`, "asked", "reads outside the workspace"},
		{`git blame --contents .env a.txt`, "asked", "not read-only"},
		{`git blame --cont .env a.txt`, "asked", "not read-only"},
		{`git grep --untracked KEY`, "asked", "not read-only"},
		{`git grep --untracked --no-exclude-standard KEY`, "asked", "not read-only"},
		{`git grep --no-exclude KEY`, "asked", "not read-only"},
		{`git diff --no-index a.txt /etc/passwd`, "asked", "not read-only"},
		{`git init --template=evil`, "asked", "protected .git/config"},
		{`git init --temp evil sub`, "asked", "protected sub/.git/config"},
		{`git remote add x 'ext::sh -c touch% PWNED'`, "asked", "protected .git/config"},
		{`git -C sub remote set-url origin x`, "asked", "protected sub/.git/config"},
		// What must stay easy.
		{`ls -la`, "read-only", ""},
		{`git status`, "read-only", ""},
		{`git log --oneline -5`, "read-only", ""},
		{`cat 'a b.txt'`, "read-only", ""},
		{`cat "a b.txt"`, "read-only", ""},
		{`grep -rn "foo bar" .`, "read-only", ""},
		{`grep -n 'a[$(x)]' a.txt`, "read-only", ""},
		{`echo 'costs $5' "and {a,b}"`, "read-only", ""},
		{`jq '.a' a.txt`, "read-only", ""},
		{`git log --format='%h %s' -n 3`, "read-only", ""},
		{`git stash show -p stash@{0}`, "read-only", "git prints contents"},
		{`find . -name '*.go' -type f`, "read-only", ""},
		{`date +%s`, "read-only", ""},
		{`date -u -d @0 '+%F %T'`, "read-only", ""},
		{`test -f a.txt && echo yes`, "read-only", ""},
		{`ls | xargs -n 5 wc -l`, "read-only", ""},
		{`command time -p ls`, "read-only", ""},
		{`head -n 3 a.txt; wc -l a.txt`, "read-only", ""},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			got, why := classify(t, root, c.line, ignored)
			if got != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("got %s (%s)\n  want %s (%s)", got, why, c.want, c.reason)
			}
			s, err := shellcmd.Parse(c.line)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if ro := s.ReadOnly(); ro != (c.want == "read-only") {
				t.Errorf("ReadOnly = %v", ro)
			}
		})
	}
}
