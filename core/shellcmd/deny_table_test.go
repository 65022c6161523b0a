package shellcmd

import "testing"

// TestDeniedAsTheProgramReadsIt holds the lines that ran under --yolo although the
// default deny list names what they do, with variants, and lines that must stay allowed.
// entry is the deny-list entry that must match ("" when the line must not be denied).
func TestDeniedAsTheProgramReadsIt(t *testing.T) {
	cases := []struct {
		cmd, entry string
	}{
		// rm recursive without force removes the tree as rm -rf does.
		{"rm -r victim", "rm -rf"},
		{"rm -R victim", "rm -rf"},
		{"rm --recursive victim", "rm -rf"},
		{"rm -rv victim", "rm -rf"},
		{"rm -f victim", ""},
		{"rm victim", ""},
		// GNU long options by any unique prefix.
		{"rm --recu --forc victim", "rm -rf"},
		{"rm --rec victim", "rm -rf"},
		{"rm --r victim", "rm -rf"},
		{"rm --f --d victim", ""},
		{"rm --verb victim", ""},
		{"chmod --recur 777 .", "chmod -R"},
		{"chmod --re 777 .", "chmod -R"}, // --recursive or --reference: counted as both
		// git accepts unique prefixes too; an ambiguous one is every option it may be.
		{"git reset --har", "git reset --hard"},
		{"git reset --ha HEAD~1", "git reset --hard"},
		{"git reset --so HEAD~1", ""},
		{"git clean --forc -dx", "git clean -f"},
		{"git clean --f -d", "git clean -f"},
		{"git clean --dry", ""},
		{"git push --forc", "git push --force"},
		{"git push --for origin main", "git push --force"},
		{"git push --force-w origin", "git push --force"},
		{"git push --dry-run origin", ""},
		{"git push --d origin x", ""}, // --delete or --dry-run: neither is a force
		// Wrappers Cairn knows now: the inner command is a command of its own.
		{"ionice -c3 rm -rf victim", "rm -rf"},
		{"ionice -c 2 -n 7 rm -rf victim", "rm -rf"},
		{"taskset 0x1 rm -rf victim", "rm -rf"},
		{"taskset -c 0-3 git push --force", "git push --force"},
		{"chrt -f 99 rm -rf victim", "rm -rf"},
		{"chrt --idle 0 sudo ls", "sudo"},
		{"flock /tmp/lock rm -rf victim", "rm -rf"},
		{"flock -w 5 /tmp/lock -c 'rm -rf victim'", "rm -rf"},
		{"flock /tmp/lock --command 'git reset --hard'", "git reset --hard"},
		{"script -c 'rm -rf victim' /dev/null", "rm -rf"},
		{"script -qc 'sudo id' log", "sudo"},
		{"script --command='git clean -fdx'", "git clean -f"},
		{"numactl --cpunodebind=0 rm -rf victim", "rm -rf"},
		{"numactl -N 0 -m 0 dd if=/dev/zero of=x", "dd"},
		// Wrappers Cairn does not know: the denied program named among the arguments.
		{"unbuffer rm -rf victim", "rm -rf"},
		{"firejail --noprofile rm -rf victim", "rm -rf"},
		{"systemd-run --user --scope rm -rf victim", "rm -rf"},
		{"caffeinate -i rm -rf victim", "rm -rf"},
		{"nocache git push --force", "git push --force"},
		{"ionice --class 3 rm --recu --forc victim", "rm -rf"},
		{"make rm -rf x", "rm -rf"}, // denies more often, never less
		{"/usr/bin/unbuffer /bin/rm -r victim", "rm -rf"},
		{"unbuffer rm victim", ""},
		{"unbuffer ls -rf", ""},
		{"echo rm -rf x", ""},
		{"grep -e rm -rf .", ""},
		{"printf '%s\\n' rm -rf", ""},
		{"git rm -r --cached build", ""},
		{"git bisect run rm -rf victim", "rm -rf"},
		{"git submodule foreach git push --force", "git push --force"},
		// Aliases a git line defines for itself.
		{"git -c alias.x='!rm -rf victim' x", "rm -rf"},
		{"git -c 'alias.x=!sh -c \"rm -rf victim\"' x", "rm -rf"},
		{"git -c alias.x='!sudo id' status", "sudo"}, // defined, not used: still judged
		{"git -c Alias.X='push --force' x", "git push --force"},
		{"git -c alias.p=push p --force origin", "git push --force"},
		{"git -c alias.r='reset --hard' r", "git reset --hard"},
		{"git -C repo -c alias.c='clean -fdx' c", "git clean -f"},
		{"git -c alias.st=status st", ""},
		{"git -c user.name=x commit -m msg", ""},
		{"git --config-env=alias.x=CMD x", "opaque"},
		{"git --config-env alias.x=CMD x", "opaque"},
		{"git -c \"alias.x=$CMD\" x", "opaque"},
		{"git -c \"$SETTING\" x", "opaque"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			s, err := Parse(c.cmd)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			hit, got := s.Denied(defaultList)
			switch {
			case c.entry == "" && got:
				t.Fatalf("denied (%+v), want allowed; commands %+v", hit, s.Commands)
			case c.entry == "opaque" && (!got || hit.Entry != ""):
				t.Fatalf("Denied = %v %+v, want denied as hidden", got, hit)
			case c.entry != "" && c.entry != "opaque" && hit.Entry != c.entry:
				t.Fatalf("Denied = %v %+v, want entry %q; commands %+v", got, hit, c.entry, s.Commands)
			}
		})
	}
}

// TestDeniedUserEntryByPrefix: an entry naming a program whose options Cairn does not list
// still matches an abbreviation of its long option, since the program may accept one.
func TestDeniedUserEntryByPrefix(t *testing.T) {
	list := []string{"npm publish --force"}
	for cmd, want := range map[string]bool{
		"npm publish --forc":    true,
		"npm publish --force":   true,
		"npm publish --dry-run": false,
		"npm publish":           false,
	} {
		s, err := Parse(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := s.Denied(list); got != want {
			t.Errorf("%q: Denied = %v, want %v", cmd, got, want)
		}
	}
}

// TestKnownWrappersShowTheInnerCommand: the wrappers Cairn peels now hand their inner command
// to every other check, and their forms that run nothing stay a command of their own.
func TestKnownWrappersShowTheInnerCommand(t *testing.T) {
	cases := map[string]string{
		"ionice -c3 cp a .git/hooks/p":             "cp",
		"taskset -c 1 touch x":                     "touch",
		"chrt -r 10 touch x":                       "touch",
		"flock /tmp/l touch x":                     "touch",
		"numactl --membind 0 touch x":              "touch",
		"script -qc 'touch x' /dev/null":           "touch",
		"flock /tmp/l -c 'touch x'":                "touch",
		"ionice -p 42":                             "ionice",
		"taskset -p 0x1 42":                        "taskset",
		"chrt -p 42":                               "chrt",
		"chrt -m":                                  "chrt",
		"numactl --hardware":                       "numactl",
		"flock 9":                                  "flock",
		"ionice -c3 env FOO=1 rm -r -- victim dir": "rm",
	}
	for cmd, want := range cases {
		s, err := Parse(cmd)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, c := range s.Commands {
			if !c.Wrapper {
				got = c.Name()
			}
		}
		if got != want {
			t.Errorf("%q: inner command %q, want %q; commands %+v", cmd, got, want, s.Commands)
		}
	}
}
