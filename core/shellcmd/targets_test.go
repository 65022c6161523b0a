package shellcmd

import (
	"path"
	"strings"
	"testing"
)

// TestTargets lists, for each line, the files it writes as "dir/path" (a "+" suffix marks a
// whole-tree target), in order.
func TestTargets(t *testing.T) {
	cases := []struct {
		cmd  string
		want string // space-separated
	}{
		// redirections
		{"echo x > .git/hooks/post-checkout", ".git/hooks/post-checkout"},
		{"echo x >> a.txt 2>&1", "a.txt"},
		{"cd sub && echo x > f", "sub/f"},
		{"ls > /dev/null", ""},
		{"bash -c 'printf hi &> .vscode/settings.json'", ".vscode/settings.json"},
		// tee
		{"echo x | tee -a .git/config b.txt", ".git/config b.txt"},
		{"echo x | sudo tee --output-error=warn out", "out"},
		// cp, mv, install, ln
		{"cp evil.sh .git/hooks/pre-commit", ".git/hooks/pre-commit .git/hooks/pre-commit/evil.sh"},
		{"cp -r hooks/ .clinerules", ".clinerules .clinerules/hooks"},
		{"mv -t .git/hooks a b", ".git/hooks .git/hooks/a .git/hooks/b"},
		{"mv --target-directory=dst a", "dst dst/a"},
		{"cp -T src dst", "dst"},
		{"cp x/AGENTS.md .", ". AGENTS.md"},
		{"install -m 755 hook .git/hooks/pre-push", ".git/hooks/pre-push .git/hooks/pre-push/hook"},
		{"install -d .cairn/hooks", ".cairn/hooks"},
		{"ln -sf ../evil .git/hooks/pre-commit", ".git/hooks/pre-commit .git/hooks/pre-commit/evil"},
		{"ln -s /tmp/x/.cursorrules", ".cursorrules"},
		{"cp only-one", ""},
		// permissions
		{"chmod +x .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"chmod -x run.sh", "run.sh"},
		{"chmod 755 a b", "a b"},
		{"chmod --reference=ref .git/config", ".git/config"},
		{"chown -R me:me sub", "sub+"},
		{"chgrp staff f", "f"},
		// removal and creation
		{"rm .clineignore", ".clineignore"},
		{"rm -rf sub", "sub+"},
		{"rm -r -f -- -odd", "-odd+"},
		{"rmdir .vscode", ".vscode"},
		{"touch -d yesterday .windsurfrules", ".windsurfrules"},
		{"mkdir -p -m 700 .clinerules/hooks", ".clinerules/hooks"},
		{"truncate -s 0 .cursorrules", ".cursorrules"},
		{"dd if=/dev/zero of=.git/index bs=1", ".git/index"},
		// in place editors
		{"sed -i 's/a/b/' .vscode/settings.json", ".vscode/settings.json"},
		{"sed -i.bak -e 's/a/b/' f g", "f g"},
		{"sed -ni 's/a/b/p' f", "f"},
		{"sed --in-place=.orig 's/a/b/' f", "f"},
		{"sed 's/a/b/' f", ""},
		{"sed -e 's/i/j/' f", ""},
		{"perl -pi -e 's/a/b/' AGENTS.md", "AGENTS.md"},
		{"perl -i.bak -pe 's/a/b/' a b", "a b"},
		{"perl -pi fix.pl f", "f"},
		{"perl -ne 'print' f", ""},
		// git config
		{"git config core.hooksPath .evil-hooks", ".git/config"},
		{"git config --unset core.fsmonitor", ".git/config"},
		{"git -C sub config alias.x '!sh'", "sub/.git/config"},
		{"cd sub && git config user.name x", "sub/.git/config"},
		{"git config --get core.hooksPath", ""},
		{"git config -l", ""},
		{"git status", ""},
		// nothing known
		{"rm $F", ""},
		{"cat a b", ""},
		{"echo hi", ""},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			s, err := Parse(tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range s.Targets() {
				p := tg.Path.Text
				if tg.Dir != "" {
					p = path.Join(tg.Dir, p)
				}
				if tg.Tree {
					p += "+"
				}
				got = append(got, p)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("Targets(%q) = %q, want %q", tc.cmd, g, tc.want)
			}
		})
	}
}
