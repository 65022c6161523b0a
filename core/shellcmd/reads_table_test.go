package shellcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadsTable: the read-only table says which operands each program reads, so the
// ignore check of commands covers them (README, "Ignored files in commands").
func TestReadsTable(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string
	}{
		{"sort .env", []string{".env"}},
		{"sort -u -k2 a.txt b.txt", []string{"a.txt", "b.txt"}},
		{"sort --random-source=.env a", []string{".env", "a"}},
		{"uniq a", []string{"a"}},
		{"jq . f.json", []string{"f.json"}},
		{"jq -f prog.jq in.json", []string{"prog.jq", "in.json"}},
		{"jq --rawfile x .env -n '$x'", []string{".env"}},
		{"jq --arg k v . a.json", []string{"a.json"}},
		{"grep -e x -f pats a", []string{"pats", "a"}},
		{"rg foo src", []string{"src"}},
		{"wc -l .env", []string{".env"}},
		{"cut -d= -f2 .env", []string{".env"}},
		{"sha256sum .env", []string{".env"}},
		{"diff --from-file=.env a", []string{".env", "a"}},
		{"git show HEAD:.env", []string{".env"}},
		{"git show HEAD~2:src/main.go", []string{"src/main.go"}},
		{"git -C sub show :x.txt", []string{"sub/x.txt"}},
		{"git cat-file -p main:.env", []string{".env"}},
		{"git show origin/main:.env", []string{".env"}},
		{"git show :/fix", nil},
		{"ls .env", nil},
		{"echo .env", nil},
		{"seq 3", nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []string
			for _, o := range s.Reads() {
				got = append(got, o.Path.Text)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("Reads = %q, want %q", got, c.want)
			}
		})
	}
}

// TestFirstIgnoredNewReaders: lines that printed a hidden file unasked before the table.
func TestFirstIgnoredNewReaders(t *testing.T) {
	root := t.TempDir()
	fake := ignoreFake{root: root, entries: []string{".env"}}
	for _, cmd := range []string{"sort .env", "git show HEAD:.env", "uniq .env", "jq . .env", "cut -f1 .env"} {
		s, err := Parse(cmd)
		if err != nil {
			t.Fatal(err)
		}
		abs, blocked := s.FirstIgnored(root, fake.ignored)
		if !blocked || abs != filepath.Join(root, ".env") {
			t.Errorf("%s: FirstIgnored = %q, %v, want .env blocked", cmd, abs, blocked)
		}
	}
}

func TestFirstOutside(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	root := filepath.Join(t.TempDir(), "ws")
	inside := func(abs string) bool {
		return abs == root || strings.HasPrefix(abs, root+string(filepath.Separator))
	}
	cases := []struct {
		cmd  string
		want string // "" when every operand is inside
	}{
		{"cat ~/.ssh/id_rsa", filepath.Join(home, ".ssh", "id_rsa")},
		{"cat /etc/passwd", "/etc/passwd"},
		{"head -n 3 ../other/secret.txt", filepath.Join(filepath.Dir(root), "other", "secret.txt")},
		{"ls ~/.ssh", filepath.Join(home, ".ssh")},
		{"find /etc -name '*.conf'", "/etc"},
		{"cd .. && cat x", filepath.Join(filepath.Dir(root), "x")},
		{"cd $D && cat x", "x"},
		{"cat a.txt src/b.go", ""},
		{"grep -rn /etc/passwd src", ""}, // the pattern is not a file
		{"ls", ""},
		{"find . -type f", ""},
		{"echo /etc/passwd", ""},
		{"cd /etc && ls", "/etc"},
		{"cd /etc && grep -r root", "/etc"},
		{"cd /etc && grep root", ""}, // reads its standard input
		{"git -C /etc/x log", "/etc/x"},
		{"git -C ../other show HEAD:a", filepath.Join(filepath.Dir(root), "other", "a")},
		{"cd ~ && cat x", "x"}, // a folder only known when it runs
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := c.want
			if d, ok := driveRooted(root, want); ok {
				want = d // Windows: /etc is the root of the workspace's drive
			}
			got, outside := s.FirstOutside(root, inside)
			if outside != (want != "") || got != want {
				t.Fatalf("FirstOutside = %q, %v, want %q", got, outside, want)
			}
		})
	}
}

func TestGitDirsAndContent(t *testing.T) {
	cases := []struct {
		cmd     string
		dirs    []string
		known   bool
		content bool
	}{
		{"git status", []string{""}, true, false},
		{"git -C sub status", []string{"sub"}, true, false},
		{"cd a && git -C b log --oneline", []string{"a/b"}, true, false},
		{"git -C /tmp/x status", []string{"/tmp/x"}, true, false},
		{"cd $D && git status", []string{""}, false, false},
		{"git log -p", []string{""}, true, true},
		{"git log --stat", []string{""}, true, false},
		{"git show HEAD", []string{""}, true, true},
		{"git diff", []string{""}, true, true},
		{"git grep x", []string{""}, true, true},
		{"git blame a.go", []string{""}, true, true},
		{"ls && git status && git -C x diff", []string{"", "x"}, true, true},
		{"ls", nil, true, false},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			dirs, known := s.GitDirs()
			if !slices.Equal(dirs, c.dirs) || known != c.known {
				t.Errorf("GitDirs = %q, %v, want %q, %v", dirs, known, c.dirs, c.known)
			}
			if got := s.GitPrintsContent(); got != c.content {
				t.Errorf("GitPrintsContent = %v, want %v", got, c.content)
			}
		})
	}
}

func TestGitConfigHarmless(t *testing.T) {
	cases := []struct {
		name, config string
		key          string // "" when harmless
	}{
		{"plain", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = git@github.com:x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", ""},
		{"fsmonitor program", "[core]\n\tfsmonitor = touch PWNED\n", "core.fsmonitor"},
		{"fsmonitor case", "[CORE]\n\tFSMonitor = ./x\n", "core.fsmonitor"},
		{"fsmonitor builtin", "[core]\n\tfsmonitor = true\n", ""},
		{"key on the header line", "[core] pager = sh\n", "core.pager"},
		{"old subsection", "[diff.pdf]\n\ttextconv = sh\n", "diff.pdf.textconv"},
		{"textconv", "[diff \"pdf\"]\n\ttextconv = pdftotext\n", "diff.pdf.textconv"},
		{"diff external", "[diff]\n\texternal = x\n", "diff.external"},
		{"diff algorithm", "[diff]\n\talgorithm = histogram\n", ""},
		{"include", "[include]\n\tpath = ../evil.cfg\n", "include.path"},
		{"includeIf", "[includeIf \"gitdir:/\"]\n\tpath = x\n", "includeif.gitdir:/.path"},
		{"filter", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", "filter.lfs.clean"},
		{"alias", "[alias]\n\tst = status\n\tx = !sh -c y\n", ""},
		{"pager section", "[pager]\n\tlog = sh\n", "pager.log"},
		{"worktree", "[core]\n\tworktree = /\n", "core.worktree"},
		{"hooksPath", "[core]\n\thooksPath = h\n", "core.hookspath"},
		{"sshCommand", "[core]\n\tsshCommand = x\n", "core.sshcommand"},
		{"credential", "[credential]\n\thelper = store\n", "credential.helper"},
		{"gpg", "[gpg]\n\tprogram = x\n", "gpg.program"},
		{"gpg ssh", "[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program"},
		{"trace2", "[trace2]\n\teventTarget = /tmp/x\n", "trace2.eventtarget"},
		{"protocol", "[protocol \"ext\"]\n\tallow = always\n", "protocol.ext.allow"},
		{"comment", "# [core]\n; fsmonitor = x\n[core]\n\tbare = false # fsmonitor = x\n", ""},
		{"continued", "[user]\n\tname = a \\\n b\n[core]\n\teditor = \"vim\"\n", "core.editor"},
		{"quoted hash", "[user]\n\tname = \"a # b\"\n[merge \"m\"]\n\tdriver = x\n", "merge.m.driver"},
		{"bare key", "[core]\n\tbare\n[sequence]\n\teditor = x\n", "sequence.editor"},
		{"malformed", "[core\n\tfsmonitor = x\n", "git config: a malformed section"},
		{"key before a section", "fsmonitor = x\n", "git config: a key before any section"},
		{"open quote", "[user]\n\tname = \"a\n", "git config: a quote left open"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, key := GitConfigHarmless([]byte(c.config))
			if ok != (c.key == "") || key != c.key {
				t.Fatalf("GitConfigHarmless = %v, %q, want %q", ok, key, c.key)
			}
		})
	}
}

// TestGitConfigHarmlessRealGit checks configs written by git itself, and that git reads the
// same key this parser reports.
func TestGitConfigHarmlessRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	read := func() []byte {
		b, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if ok, key := GitConfigHarmless(read()); !ok {
		t.Fatalf("a fresh repository's config: harmful %q", key)
	}
	run("config", "user.name", `a "quoted" # name \ here`)
	run("config", "remote.origin.url", "https://example.com/x.git")
	run("config", "alias.st", "status -sb")
	if ok, key := GitConfigHarmless(read()); !ok {
		t.Fatalf("harmless settings: harmful %q\n%s", key, read())
	}
	run("config", "diff.My Driver.textconv", "cat -v")
	if ok, key := GitConfigHarmless(read()); ok || key != "diff.My Driver.textconv" {
		t.Fatalf("textconv: %v, %q\n%s", ok, key, read())
	}
	run("config", "--unset", "diff.My Driver.textconv")
	run("config", "core.fsmonitor", "echo; touch PWNED")
	if ok, key := GitConfigHarmless(read()); ok || key != "core.fsmonitor" {
		t.Fatalf("fsmonitor: %v, %q\n%s", ok, key, read())
	}
}
