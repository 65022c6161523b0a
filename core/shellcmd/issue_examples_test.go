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
