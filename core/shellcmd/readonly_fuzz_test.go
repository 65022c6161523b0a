package shellcmd

import (
	"strings"
	"testing"
)

// fuzzProg is a program's options as GNU's documentation lists them, kept here apart from
// the classification's own tables so that the fuzz target checks one against the other.
type fuzzProg struct {
	longs    []string        // every long option
	bad      map[string]bool // long or short options that are not harmless
	values   map[string]bool // options that take a value
	optional map[string]bool // options whose value is optional and only attached
	shorts   string          // every short option letter
	digits   bool            // -NUM is a count (head -5)
}

func fields(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

var fuzzProgs = map[string]fuzzProg{
	"sort": {
		longs: strings.Fields(`--batch-size --buffer-size --check --compress-program --debug
			--dictionary-order --field-separator --files0-from --general-numeric-sort --help
			--human-numeric-sort --ignore-case --ignore-leading-blanks --ignore-nonprinting --key
			--merge --month-sort --numeric-sort --output --parallel --random-sort --random-source
			--reverse --sort --stable --temporary-directory --unique --version --version-sort
			--zero-terminated`),
		bad:      fields("--compress-program --output --temporary-directory --files0-from -o -T"),
		values:   fields("--batch-size --buffer-size --field-separator --key --parallel --random-source --sort --compress-program --output --temporary-directory --files0-from -k -S -t -o -T"),
		optional: fields("--check"),
		shorts:   "bdfgiMhnRrVcCmsuzkStoT",
	},
	"head": {
		longs:  strings.Fields("--bytes --lines --quiet --silent --verbose --zero-terminated --help --version"),
		bad:    fields(""),
		values: fields("--bytes --lines -c -n"),
		shorts: "qvzcn",
		digits: true,
	},
	"uniq": {
		longs: strings.Fields(`--count --repeated --all-repeated --skip-fields --group --ignore-case
			--skip-chars --unique --zero-terminated --check-chars --help --version`),
		bad:      fields(""),
		values:   fields("--skip-fields --skip-chars --check-chars -f -s -w"),
		optional: fields("--all-repeated --group"),
		shorts:   "cdDiuzfsw",
	},
	"date": {
		longs: strings.Fields(`--date --debug --file --iso-8601 --resolution --rfc-email --rfc-3339
			--reference --set --utc --universal --help --version`),
		bad:      fields("--set -s --reference -r"),
		values:   fields("--date --file --rfc-3339 --reference --set -d -f -r -s"),
		optional: fields("--iso-8601 -I"),
		shorts:   "RuIdfrs",
	},
	"wc": {
		longs:  strings.Fields("--bytes --chars --lines --max-line-length --words --total --files0-from --help --version"),
		bad:    fields("--files0-from"),
		values: fields("--total --files0-from"),
		shorts: "cmlLw",
	},
}

// fuzzAccepts is the independent check: every option of args resolves, in full or as the
// unique prefix of one, to an option of p that is harmless.
func fuzzAccepts(p fuzzProg, args []Word) (bool, string) {
	for i := 0; i < len(args); i++ {
		w := args[i].Text
		if w == "--" {
			return true, ""
		}
		if args[i].Dynamic {
			return false, "a word only known at run time: " + w
		}
		if len(w) < 2 || w[0] != '-' {
			continue
		}
		if p.digits && strings.Trim(w[1:], "0123456789") == "" {
			continue
		}
		if strings.HasPrefix(w, "--") {
			name, _, attached := strings.Cut(w, "=")
			var match []string
			for _, l := range p.longs {
				if l == name {
					match = []string{l}
					break
				}
				if strings.HasPrefix(l, name) {
					match = append(match, l)
				}
			}
			if len(match) != 1 {
				return false, "not exactly one option: " + w
			}
			if p.bad[match[0]] {
				return false, "harmful: " + w + " is " + match[0]
			}
			if p.values[match[0]] && !attached {
				i++ // its value
			}
			continue
		}
		for j := 1; j < len(w); j++ {
			o := "-" + w[j:j+1]
			if !strings.Contains(p.shorts, w[j:j+1]) {
				return false, "unknown short " + o + " in " + w
			}
			if p.bad[o] {
				return false, "harmful short " + o + " in " + w
			}
			if p.optional[o] {
				break
			}
			if p.values[o] {
				if j == len(w)-1 {
					i++
				}
				break
			}
		}
	}
	return true, ""
}

var fuzzWords = []string{"--compress-program=sh", "--compress", "--comp=sh", "--c", "--ch", "--check",
	"--out=x", "--o", "--output", "--temp=/tmp", "--files0=l", "--set=1", "--se", "--s", "--st",
	"--stable", "--buffer-size=1K", "--buf", "--lines=3", "--l", "--li", "--total=never", "--to",
	"--group", "--g", "--iso", "--iso-8601=ns", "--rfc-3", "--ref=x", "--files0-from=l", "--help",
	"--version", "--v", "--d", "--de", "--date=@0", "--",
	"-o", "-ox", "-uo", "-T", "-Tx", "-S", "-S1K", "-n", "-n5", "-5", "-c", "-s", "-sx", "-Is", "-I",
	"-ru", "-k2", "-t:", "-d", "-D", "-fs", "-w", "-L", "-z", "-R", "-x", "-q", "-",
	"a.txt", "1K", "x", "$X", "\"$Y\"", "'--output=z'", "-r", "-u", "-m", "-b", "-f",
}

// FuzzReadOnlyOptions: whenever the classification accepts a line built from known programs
// and option-like words, each option of each command resolves to a harmless option of its
// program by fuzzAccepts.
func FuzzReadOnlyOptions(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{0, 30, 31, 40, 41, 60})
	f.Add([]byte{3, 9, 10, 11, 200, 4, 5})
	progNames := []string{"sort", "head", "uniq", "date", "wc"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 96 {
			return // a command line, not a file
		}
		var line strings.Builder
		for len(b) > 0 {
			line.WriteString(progNames[int(b[0])%len(progNames)])
			b = b[1:]
			for len(b) > 0 && b[0] < 250 {
				line.WriteString(" ")
				w := fuzzWords[int(b[0])%len(fuzzWords)]
				if b[0] >= 200 && strings.HasPrefix(w, "--") && len(w) > 3 {
					w = w[:3+int(b[0])%(len(w)-2)] // a random prefix
				}
				line.WriteString(w)
				b = b[1:]
			}
			if len(b) > 0 {
				line.WriteString([]string{" | ", " && ", "; "}[int(b[0])%3])
				b = b[1:]
			}
		}
		src := line.String()
		s, err := Parse(src)
		if err != nil || !s.ReadOnly() {
			return
		}
		for _, c := range s.Commands {
			p, ok := fuzzProgs[c.Name()]
			if !ok {
				t.Fatalf("%q: read-only with a command outside the fuzzed programs: %q", src, c.Name())
			}
			if ok, why := fuzzAccepts(p, c.Words[1:]); !ok {
				t.Fatalf("%q accepted as read-only, but %s", src, why)
			}
		}
	})
}
