package shellcmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnknownWrites: a write whose file is not known before the line runs is reported, with
// the path as written, never dropped.
func TestUnknownWrites(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string // each must be a substring of one reason; none when empty
	}{
		{"d=.git; echo x > $d/hooks/p", []string{"only known when it runs: $d/hooks/p"}},
		{"echo x > \"$OUT\"", []string{"only known when it runs: \"$OUT\""}},
		{"printf x >> $(git rev-parse --git-dir)/hooks/pre-commit", []string{"$(git rev-parse --git-dir)/hooks/pre-commit"}},
		{"cp evil.sh $d/hooks/pre-commit", []string{"$d/hooks/pre-commit"}},
		{"echo x | tee ${HOOKS}/p", []string{"${HOOKS}/p"}},
		{"ln -s $target hk", []string{"makes a link to a place only known when it runs: hk"}},
		// A cd the parser cannot follow.
		{"cd \"$(somecmd)\" && echo x > hooks/p", []string{"folder only known when it runs: hooks/p"}},
		{"cd $d; touch pre-commit", []string{"folder only known when it runs: pre-commit"}},
		{"cd; echo x >> .bashrc", []string{"folder only known when it runs: .bashrc"}},
		{"cd -; echo x > f", []string{"f"}},
		{"pushd $d && cp a b && popd", []string{"folder only known when it runs: b"}},
		{"cd $d && cd hooks && echo x > p", []string{"folder only known when it runs: p"}},
		{"git -C $d config core.hooksPath h", []string{".git/config"}},
		// xargs hands the file names at run time.
		{"echo .git/hooks/p | xargs cp a.txt", []string{"xargs names only when it runs: xargs cp a.txt"}},
		{"ls | xargs -I{} cp a {}", []string{"xargs cp a {}"}},
		{"ls | xargs -I % mv % old", []string{"xargs mv % old"}},
		{"ls | xargs tee", []string{"xargs tee"}},
		{"ls | xargs rm", []string{"xargs rm"}},
		{"ls | xargs -0 mv -t dst", []string{"xargs mv -t dst"}},
		{"ls | xargs chmod +x", []string{"xargs chmod +x"}},
		{"ls | xargs sed -i s/a/b/", []string{"xargs sed -i s/a/b/"}},
		{"ls | xargs ln -s", []string{"xargs ln -s"}},
		{"ls | xargs -n1 timeout 5 touch", []string{"xargs touch"}},
		// A link made earlier in the same line.
		{"ln -s .git/hooks hk && printf '#!/bin/sh\\n' > hk/pre-commit && chmod +x hk/pre-commit && git commit",
			[]string{"writes through the link hk that the same line makes: hk/pre-commit"}},
		{"ln -s .git/hooks hk; cd hk; echo x > p", []string{"through the link hk"}},
		{"ln -sfn ../.git sub/g && cp x sub/g/config", []string{"through the link sub/g"}},
		// Known writes stay known.
		{"echo x > notes.txt", nil},
		{"cd sub && echo x > f", nil},
		{"cd $d && echo x > /tmp/abs", nil},
		{"cd $d; cd /work && echo x > f", nil},
		{"ls | xargs cat", nil},
		{"ls | xargs grep x", nil},
		{"ln -s a b && cat b/c", nil},
		{"echo $x > /dev/null", nil},
		{"cmd 2>&1 >&2", nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := s.UnknownWrites()
			if len(c.want) == 0 && len(got) > 0 {
				t.Fatalf("UnknownWrites = %q, want none", got)
			}
			for _, w := range c.want {
				if !slices.ContainsFunc(got, func(r string) bool { return strings.Contains(r, w) }) {
					t.Fatalf("UnknownWrites = %q, want one with %q", got, w)
				}
			}
		})
	}
}

// TestLinkTo: ln's targets carry what the link leads to, relative to the folder a relative
// symbolic link is resolved from.
func TestLinkTo(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string // "link -> dir|path"
	}{
		{"ln -s .git/hooks hk", []string{"hk -> |.git/hooks"}},
		{"ln -s ../.git/hooks sub/hk", []string{"sub/hk -> sub|../.git/hooks"}},
		{"cd sub && ln -s ../.git h", []string{"sub/h -> sub|../.git"}},
		{"ln -sr .git/hooks sub/hk", []string{"sub/hk -> |.git/hooks"}},
		{"ln .git/config cfg", []string{"cfg -> |.git/config"}},
		{"ln -s .git/hooks", []string{"hooks -> |.git/hooks"}},
		{"ln -s /abs/x d", []string{"d -> |/abs/x", "d/x -> d|/abs/x"}},
		{"ln -s a b dir", []string{"dir/a -> dir|a", "dir/b -> dir|b"}},
		{"cp -l .git/config cfg", []string{"cfg -> |.git/config"}},
		{"cp --symbolic-link /abs/.git/hooks/pre-commit sub/", []string{"sub/pre-commit -> |/abs/.git/hooks/pre-commit"}},
		{"cp a b", nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range s.Targets() {
				if tg.LinkTo != nil {
					got = append(got, filepathJoin(tg.Dir, tg.Path.Text)+" -> "+tg.LinkTo.Dir+"|"+tg.LinkTo.Path.Text)
				}
			}
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Fatalf("links %q, want %q", got, w)
				}
			}
			if len(c.want) == 0 && len(got) > 0 {
				t.Fatalf("links %q, want none", got)
			}
		})
	}
}

func filepathJoin(dir, p string) string {
	if dir == "" {
		return p
	}
	return dir + "/" + p
}

// TestWritePaths: every known write, absolute, with ~ expanded to $HOME, so a caller can tell
// a write outside the workspace.
func TestWritePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	root := t.TempDir()
	cases := []struct {
		cmd  string
		want []string
	}{
		{"echo '[core] hooksPath=/tmp/h' >> ~/.gitconfig", []string{filepath.Join(home, ".gitconfig")}},
		{"echo x >> ~/.bashrc", []string{filepath.Join(home, ".bashrc")}},
		{"echo x > /tmp/x", []string{filepath.Join(filepath.VolumeName(root)+string(filepath.Separator), "tmp", "x")}},
		{"cp a ../outside", []string{filepath.Join(filepath.Dir(root), "outside")}},
		{"touch inside.txt", []string{filepath.Join(root, "inside.txt")}},
		{"cd sub && tee -a f", []string{filepath.Join(root, "sub", "f")}},
		{"echo x > ~bob/.profile", []string{"~bob/.profile"}},
		{"git config --global core.hooksPath /tmp/h", []string{filepath.Join(home, ".gitconfig")}},
		{"git config --file=../other/config x y", []string{filepath.Join(filepath.Dir(root), "other", "config")}},
		{"ls > /dev/null 2>/dev/stderr", nil},
		{"echo x | tee /dev/stderr", nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatal(err)
			}
			got := s.WritePaths(root)
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Fatalf("WritePaths = %q, want %q in it", got, w)
				}
			}
			if len(c.want) == 0 && len(got) > 0 {
				t.Fatalf("WritePaths = %q, want none", got)
			}
		})
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal(err)
	}
}
