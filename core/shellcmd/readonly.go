package shellcmd

import (
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// ReadOnly reports whether Cairn's own classification accepts every part of the line as
// only reading: every word is literal after quote removal (see literal.go: no parameter,
// arithmetic, command or process substitution, no brace expansion, no ~user, ~+ or ~-, no
// [[ ]], (( )), arithmetic for or let), no redirection writes a file, nothing is hidden or
// piped into a shell, no variable changes which program runs or where its configuration is
// (PATH, HOME, GIT_*, …), and every simple command is a program on the table below given only
// options known to be harmless (a long option also in any abbreviation the program accepts),
// with operands it only reads.
//
// git lines are read-only here only as far as their words go: git also runs programs its
// repository's configuration names. The caller treats a line as not read-only unless the
// configuration of every repository in GitDirs is harmless (GitConfigHarmless), and, when
// GitPrintsContent, unless no tracked file is hidden by the ignore file.
func (s *Script) ReadOnly() bool {
	if len(s.Opaque) > 0 || len(s.Writes) > 0 || len(s.ShellPipes) > 0 || len(s.Recursive) > 0 ||
		len(s.RiskyAssigns) > 0 || len(s.nonLiteral) > 0 || len(s.Commands) == 0 {
		return false
	}
	for _, c := range s.Commands {
		if c.Wrapper {
			if !neutral(c.Name()) || !wrapperReadOnly(c) {
				return false
			}
			if c.Name() == "env" && envChdir(c.Words[1:]) {
				return false // the command runs elsewhere: its relative files are not where they seem
			}
			continue
		}
		if _, ok := readOnlyCommand(c); !ok {
			return false
		}
	}
	return true
}

// wrapperOptionTables are the options of the wrappers that read or write files themselves,
// harmless and not: time -o and -a write the timing to a file; xargs -a reads its arguments
// from a file (a secret passed to echo is printed) and --process-slot-var sets a variable the
// command sees. Both accept any unique prefix of a long option.
var wrapperOptionTables = lazy.Value[map[string]program]{New: func() map[string]program {
	return map[string]program{
		"time": {opts: opts(common + " -p --portability -v --verbose -q --quiet -f= --format= !-o !--output !-a !--append"), maxOps: 0},
		"xargs": {opts: opts(common + ` -0 --null -d= --delimiter= -E= -e? --eof? -I= -i? --replace? -L= -l?
		--max-lines? -n= --max-args= -P= --max-procs= -p --interactive -r --no-run-if-empty -s=
		--max-chars= -t --verbose -x --exit --show-limits -o --open-tty -a@ --arg-file@
		!--process-slot-var`), maxOps: 0},
	}
}}

// wrapperOwnOptions returns the options a wrapper is given before the command it runs, parsed
// against its table; ok is false for a wrapper without a table or an option not known harmless.
func wrapperOwnOptions(c Command) (parsed, bool) {
	p, ok := wrapperOptionTables.Get()[c.Name()]
	if !ok {
		return parsed{}, false
	}
	own, _ := ownOptions(c.Name(), c.Words[1:])
	return p.parseArgs(own)
}

// wrapperReadOnly reports whether a wrapper's own options only change how the command runs:
// for time and xargs, every option is on their table (time -o in any spelling writes a file,
// xargs -a in any spelling reads one into the command's arguments).
func wrapperReadOnly(c Command) bool {
	if _, ok := wrapperOptionTables.Get()[c.Name()]; !ok {
		return true
	}
	pa, ok := wrapperOwnOptions(c)
	return ok && !slices.Contains(pa.used, "-a") && !slices.Contains(pa.used, "--arg-file")
}

// envChdir reports whether env's words may change the directory (-C, --chdir and its
// prefixes), before or after the command it runs.
func envChdir(args []Word) bool {
	for _, a := range args {
		if hasAny([]Word{a}, "-C") || strings.HasPrefix(a.Text, "--ch") {
			return true
		}
	}
	return false
}

// readOnlyCommand reports whether one simple command only reads, with its parsed words.
func readOnlyCommand(c Command) (parsed, bool) {
	name := c.Name()
	args := c.Words[1:]
	if !xargsSafe.has(name) && wildOption(args) {
		return parsed{}, false
	}
	if name == "git" {
		g, ok := readGit(args)
		return parsed{}, ok && !c.xargs && g.readOnly
	}
	p, ok := programs.Get()[name]
	if !ok {
		return parsed{}, false
	}
	if c.xargs && !xargsSafe.has(name) {
		return parsed{}, false // xargs adds words only known at run time
	}
	return p.readOnlyArgs(args)
}

// wildOption reports whether a glob before "--" could expand to a word the program reads as an
// option: one that begins with a wildcard matches a file named `--compress-program=sh` as
// well as any other.
func wildOption(args []Word) bool {
	for _, a := range args {
		if a.Text == "--" && !a.Dynamic {
			return false
		}
		if a.Glob && (a.Text == "" || strings.ContainsRune("*?[", rune(a.Text[0]))) {
			return true
		}
	}
	return false
}

// readerConfigVars are variables that make a program on the read-only table read options or
// run programs from elsewhere (rg's and bat's configuration files can hold --pre and
// --pager; go fetches and runs the toolchain GOTOOLCHAIN names from GOPROXY). Setting one in
// the line makes it not read-only, like PATH (see risky in parse.go).
var readerConfigVars = nameList{"RIPGREP_CONFIG_PATH", "BAT_CONFIG_PATH", "BAT_CONFIG_DIR", "BAT_PAGER",
	"BAT_OPTS", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GOENV", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK",
	"GOINSECURE", "GOPRIVATE", "GOROOT", "LESSOPEN", "LESSCLOSE"}

// xargsSafe are the programs none of whose options, known to Cairn or not, runs or writes
// anything, so that the words xargs adds, or a glob that expands to a file named like an
// option, cannot make them harmful.
var xargsSafe = nameList{"echo", "cat", "wc", "head", "tail", "grep", "egrep", "fgrep", "ls", "stat",
	"basename", "dirname"}

// common are options almost every GNU program has.
const common = " --help --version"

var (
	grepOpts = &optTable{spec: common + ` -E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp
		-e= --regexp= -f@ --file@ -i -y --ignore-case --no-ignore-case -v --invert-match -w --word-regexp
		-x --line-regexp -c --count --color? --colour? -L --files-without-match -l --files-with-matches
		-m= --max-count= -o --only-matching -q --quiet --silent -s --no-messages -b --byte-offset
		-H --with-filename -h --no-filename --label= -n --line-number -T --initial-tab -Z --null
		-A= --after-context= -B= --before-context= -C= --context= -a --text -I --binary-files=
		-D= --devices= -d= --directories= --exclude= --exclude-from@ --exclude-dir= --include=
		-r --recursive -R --dereference-recursive --line-buffered -U --binary -z --null-data
		--group-separator= --no-group-separator`}
	// rg: --pre and --pre-glob run a program on every file, -z/--search-zip runs
	// decompressors; both are refused. rg accepts no abbreviations, so listing them is
	// enough.
	rgOpts = &optTable{spec: common + ` -e= --regexp= -f@ --file@ -A= --after-context= -B= --before-context=
		-C= --context= -c --count --count-matches -i --ignore-case -S --smart-case -s --case-sensitive
		-F --fixed-strings --no-fixed-strings -g= --glob= --iglob= --glob-case-insensitive
		--no-glob-case-insensitive -t= --type= -T= --type-not= --type-list --type-add= --type-clear=
		-l --files-with-matches --files-without-match --files -n --line-number -N --no-line-number
		--column --no-column --heading --no-heading -H --with-filename -I --no-filename
		--hidden --no-hidden -L --follow --no-follow -u --unrestricted --no-ignore --no-ignore-vcs
		--no-ignore-dot --no-ignore-global --no-ignore-parent --no-ignore-exclude --no-ignore-files
		--ignore --ignore-vcs --ignore-dot --ignore-global --ignore-parent --ignore-exclude
		--ignore-file@ --ignore-file-case-insensitive --no-ignore-file-case-insensitive
		--no-ignore-messages --ignore-messages --no-messages --messages --require-git --no-require-git
		-m= --max-count= -d= --max-depth= --max-filesize= --max-columns= -M= --max-columns-preview
		--no-max-columns-preview -o --only-matching -v --invert-match -w --word-regexp -x --line-regexp
		-p --pretty --color= --colors= --json --no-json --vimgrep -0 --null --null-data -q --quiet
		-r= --replace= --passthru --sort= --sortr= --stats --no-stats -a --text --no-text --binary
		--no-binary -j= --threads= -U --multiline --no-multiline --multiline-dotall
		--no-multiline-dotall -P --pcre2 --no-pcre2 --engine= --crlf --no-crlf -E= --encoding=
		--no-encoding --trim --no-trim -b --byte-offset --line-buffered --block-buffered
		--no-line-buffered --no-block-buffered --mmap --no-mmap --one-file-system
		--no-one-file-system --path-separator= --context-separator= --no-context-separator
		--field-context-separator= --field-match-separator= --include-zero --no-unicode --unicode
		--no-config --debug --trace --dfa-size-limit= --regex-size-limit= --auto-hybrid-regex
		--no-auto-hybrid-regex --no-pre --no-search-zip --pcre2-version
		!--pre !--pre-glob !-z !--search-zip`}
	// sort: -o writes its output file, --compress-program runs a program, -T writes temporary
	// files into a folder the line names, --files0-from reads files it names itself.
	sortOpts = &optTable{spec: common + ` -b --ignore-leading-blanks -d --dictionary-order -f --ignore-case
		-g --general-numeric-sort -i --ignore-nonprinting -M --month-sort -h --human-numeric-sort
		-n --numeric-sort -R --random-sort --random-source@ -r --reverse --sort= -V --version-sort
		--batch-size= -c --check? -C -k= --key= -m --merge -s --stable -S= --buffer-size= -t=
		--field-separator= -u --unique -z --zero-terminated --parallel= --debug
		!-o !--output !--compress-program !-T !--temporary-directory !--files0-from`}
	lsOpts = &optTable{spec: common + ` -a --all -A --almost-all --author -b --escape --block-size= -B
		--ignore-backups -c -C --color? -d --directory -D --dired -f -F --classify? --file-type
		--format= --full-time -g --group-directories-first -G --no-group -h --human-readable --si
		-H --dereference-command-line --dereference-command-line-symlink-to-dir --hide=
		--hyperlink? --indicator-style= -i --inode -I= --ignore= -k --kibibytes -l -L --dereference
		-m -n --numeric-uid-gid -N --literal -o -p -q --hide-control-chars --show-control-chars
		-Q --quote-name --quoting-style= -r --reverse -R --recursive -s --size -S --sort= --time=
		--time-style= -t -T= --tabsize= -u -U -v -w= --width= -x -X -Z --context --zero -1`}
	headOpts = &optTable{spec: common + " -c= --bytes= -n= --lines= -q --quiet --silent -v --verbose -z --zero-terminated"}
	tailOpts = &optTable{spec: common + ` -c= --bytes= -n= --lines= -q --quiet --silent -v --verbose -z
		--zero-terminated -f --follow? -F --retry --pid= -s= --sleep-interval=
		--max-unchanged-stats=`}
	wcOpts   = &optTable{spec: common + " -c --bytes -m --chars -l --lines -L --max-line-length -w --words --total= !--files0-from"}
	catOpts  = &optTable{spec: common + " -A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank -t -T --show-tabs -u -v --show-nonprinting"}
	cutOpts  = &optTable{spec: common + " -b= --bytes= -c= --characters= -d= --delimiter= -f= --fields= -n --complement -s --only-delimited --output-delimiter= -z --zero-terminated"}
	uniqOpts = &optTable{spec: common + " -c --count -d --repeated -D --all-repeated? -f= --skip-fields= --group? -i --ignore-case -s= --skip-chars= -u --unique -z --zero-terminated -w= --check-chars="}
	diffOpts = &optTable{spec: common + ` --normal -q --brief -s --report-identical-files -c -C= --context?
		-u -U= --unified? -e --ed -n --rcs -y --side-by-side -W= --width= --left-column
		--suppress-common-lines -p --show-c-function -F= --show-function-line= --label= --expand-tabs
		-t -T --initial-tab --tabsize= --suppress-blank-empty -l --paginate -r --recursive
		--no-dereference -N --new-file --unidirectional-new-file --ignore-file-name-case
		--no-ignore-file-name-case -x= --exclude= -X@ --exclude-from@ -S= --starting-file=
		--from-file@ --to-file@ -i --ignore-case -E --ignore-tab-expansion -Z
		--ignore-trailing-space -b --ignore-space-change -w --ignore-all-space -B --ignore-blank-lines
		-I= --ignore-matching-lines= -a --text --strip-trailing-cr -D= --ifdef= --GTYPE-group-format=
		--line-format= --LTYPE-line-format= -d --minimal --horizon-lines= --speed-large-files
		--color? --palette=`}
	duOpts = &optTable{spec: common + ` -0 --null -a --all --apparent-size -B= --block-size= -b --bytes -c
		--total -D --dereference-args -d= --max-depth= -H -h --human-readable --inodes -k -L
		--dereference -l --count-links -m -P --no-dereference -S --separate-dirs --si -s --summarize
		-t= --threshold= --time? --time-style= -X@ --exclude-from@ --exclude= -x --one-file-system
		!--files0-from`}
	dfOpts   = &optTable{spec: common + " -a --all -B= --block-size= -h --human-readable -H --si -i --inodes -k -l --local --no-sync --output? -P --portability --sync --total -t= --type= -T --print-type -x= --exclude-type="}
	statOpts = &optTable{spec: common + " -L --dereference -f --file-system --cached= -c= --format= --printf= -t --terse"}
	// date: -s sets the clock; -f reads dates from a file (and prints the lines it cannot
	// read); -r looks at a file's time. -r is listed as reading its file, so the outside and
	// ignore checks see it, and refused by dateCheck.
	dateOpts = &optTable{spec: common + " -d= --date= --debug -f@ --file@ -I? --iso-8601? --resolution -R --rfc-email --rfc-3339= -r@ --reference@ -u --utc --universal !-s !--set"}
	// file: -C compiles a magic file (a write); -f reads the names of files to look at.
	fileOpts = &optTable{spec: common + ` -b --brief -c --checking-printout -d -E -e= --exclude= --exclude-quiet=
		--extension -F= --separator= -h --no-dereference -i --mime --mime-type --mime-encoding -k
		--keep-going -l --list -L --dereference -m@ --magic-file@ -N --no-pad -n --no-buffer -0
		--print0 -p --preserve-date -P= --parameter= -r --raw -s --special-files -S --no-sandbox
		-z --uncompress -Z --uncompress-noreport !-C !--compile !-f !--files-from`}
	xxdOpts = &optTable{spec: `-a -autoskip -b -bits -C -capitalize -c= -cols= -E -EBCDIC -e -g= -groupsize= -h
		-help -i -include -l= -len= -n= -name= -o= -offset= -p -ps -postscript -plain -R= -s= -seek=
		-u -v -version -d !-r !-revert`}
	odOpts  = &optTable{spec: common + " -A= --address-radix= --endian= -j= --skip-bytes= -N= --read-bytes= -S? --strings? -t= --format= -v --output-duplicates -w? --width? --traditional -a -b -c -d -f -i -l -o -s -x"}
	b64Opts = &optTable{spec: common + " -d --decode -i --ignore-garbage -w= --wrap="}
	nlOpts  = &optTable{spec: common + " -b= --body-numbering= -d= --section-delimiter= -f= --footer-numbering= -h= --header-numbering= -i= --line-increment= -l= --join-blank-lines= -n= --number-format= -p --no-renumber -s= --number-separator= -v= --starting-line-number= -w= --number-width="}
	// bat: --pager names a program to page through.
	batOpts = &optTable{spec: common + ` -A --show-all -p --plain -l= --language= -H= --highlight-line=
		--file-name= -d --diff --diff-context= --tabs= --wrap= -S --chop-long-lines -n --number
		--color= --italic-text= --decorations= -f --force-colorization --paging= -m= --map-syntax=
		--ignored-suffix= --theme= --list-themes -L --list-languages --style= -r= --line-range=
		-u --unbuffered --squeeze-blank --squeeze-limit= --strip-ansi= --terminal-width=
		--nonprintable-notation= --binary= -P --no-config --no-custom-assets --config-file
		--config-dir --cache-dir --diagnostic --acknowledgements !--pager`}
	// jq: -L adds a folder its modules are read from (import "x" as $d reads a file there as
	// data) and is refused; -f reads the program from a file, --slurpfile and --rawfile a file each (after a
	// variable name, as --arg and --argjson take a name and a value); --args
	// and --jsonargs make the remaining operands values, which the table does not follow,
	// so they are not listed.
	jqOpts = &optTable{spec: common + ` -c --compact-output -n --null-input -r --raw-output -j --join-output
		-a --ascii-output -s --slurp -S --sort-keys -C --color-output -M --monochrome-output
		--tab --indent= -e --exit-status --arg+ --argjson+ --slurpfile& --rawfile& -f@ --from-file@
		!-L !--library-path --seq --stream --stream-errors --raw-input -R --raw-output0 --unbuffered -0 --build-configuration`}
	treeOpts = &optTable{spec: `--help --version -a -d -l -f -x -L= -R -P= -I= --gitignore --gitfile@ --ignore-case
		--matchdirs --metafirst --prune --info --infofile@ --noreport --charset= --filelimit= -q -N
		-Q -p -u -g -s -h --si --du -D --timefmt= -F --inodes --device -v -t -c -U -r --dirsfirst
		--filesfirst --sort= -i -A -S -n -C -X -J -H= -T= --nolinks --hintro= --houtro= --fromfile
		--fromtabfile !-o !-R`}
	readlinkOpts = &optTable{spec: common + " -f --canonicalize -e --canonicalize-existing -m --canonicalize-missing -n --no-newline -q --quiet -s --silent -v --verbose -z --zero"}
	realpathOpts = &optTable{spec: common + " -e --canonicalize-existing -m --canonicalize-missing -L --logical -P --physical -q --quiet --relative-to= --relative-base= -s --strip --no-symlinks -z --zero"}
	nameOpts     = &optTable{spec: common + " -a --multiple -s= --suffix= -z --zero"}
	trOpts       = &optTable{spec: common + " -c -C --complement -d --delete -s --squeeze-repeats -t --truncate-set1"}
	commOpts     = &optTable{spec: common + " -1 -2 -3 --check-order --nocheck-order --output-delimiter= --total -z --zero-terminated"}
	cmpOpts      = &optTable{spec: common + " -b --print-bytes -i= --ignore-initial= -l --verbose -n= --bytes= -s --quiet --silent"}
	tacOpts      = &optTable{spec: common + " -b --before -r --regex -s= --separator="}
	sumOpts      = &optTable{spec: common + " -b --binary -c --check --tag -t --text -z --zero --ignore-missing --quiet --status --strict -w --warn -a= --algorithm= --base64 --raw --untagged -l= --length= --debug"}
	stringsOpts  = &optTable{spec: common + " -a --all -d --data -f --print-file-name -n= --bytes= -t= --radix= -o -e= --encoding= -T= --target= -w --include-all-whitespace -s= --output-separator= -U= --unicode="}
	columnOpts   = &optTable{spec: common + " -c= --output-width= -d --table-noheadings -e --table-header-repeat -E= --table-noextreme= -H= --table-hide= -i= --tree-id= -J --json -l= --table-columns-limit= -L --keep-empty-lines -n= --table-name= -N= --table-columns= -o= --output-separator= -O= --table-order= -p= --tree-parent= -r= --tree= -R= --table-right= -s= --separator= -t --table -T= --table-truncate= -W= --table-wrap= -x --fillrows"}
	psOpts       = &optTable{spec: common + " -A -e -a -d -N --deselect -T -r -x -C= -G= --Group= -g= --group= -p= --pid= --ppid= -q= --quick-pid= -s= --sid= -t= --tty= -u= --user= -U= --User= -c -f -F -j -l -M -O= -o= -y -Z --context --format= -H --forest --headers --no-headers --cols= --columns= --rows= --lines= --sort= -w -L -m -V --width= -n="}
)

// programs is the read-only table: every program Cairn runs as "safe", with its options.
var programs = lazy.Value[map[string]program]{New: func() map[string]program {
	return map[string]program{
		"ls":        {opts: lsOpts, use: useLook, maxOps: -1},
		"cat":       {opts: catOpts, use: useRead, maxOps: -1},
		"tac":       {opts: tacOpts, use: useRead, maxOps: -1},
		"rev":       {opts: opts(common), use: useRead, maxOps: -1},
		"head":      {opts: headOpts, use: useRead, maxOps: -1, digits: true},
		"tail":      {opts: tailOpts, use: useRead, maxOps: -1, digits: true},
		"wc":        {opts: wcOpts, use: useRead, maxOps: -1},
		"grep":      {opts: grepOpts, use: useRead, maxOps: -1, digits: true, pattern: true, patternOpts: []string{"-e", "--regexp", "-f", "--file"}},
		"egrep":     {opts: grepOpts, use: useRead, maxOps: -1, digits: true, pattern: true, patternOpts: []string{"-e", "--regexp", "-f", "--file"}},
		"fgrep":     {opts: grepOpts, use: useRead, maxOps: -1, digits: true, pattern: true, patternOpts: []string{"-e", "--regexp", "-f", "--file"}},
		"rg":        {opts: rgOpts, use: useRead, maxOps: -1, pattern: true, patternOpts: []string{"-e", "--regexp", "-f", "--file", "--files", "--type-list"}},
		"sort":      {opts: sortOpts, use: useRead, maxOps: -1},
		"uniq":      {opts: uniqOpts, use: useRead, maxOps: 1}, // a second operand is the output file
		"cut":       {opts: cutOpts, use: useRead, maxOps: -1},
		"diff":      {opts: diffOpts, use: useRead, maxOps: 2, digits: true},
		"cmp":       {opts: cmpOpts, use: useRead, maxOps: 4},
		"comm":      {opts: commOpts, use: useRead, maxOps: 2},
		"nl":        {opts: nlOpts, use: useRead, maxOps: -1},
		"strings":   {opts: stringsOpts, use: useRead, maxOps: -1, digits: true},
		"od":        {opts: odOpts, use: useRead, maxOps: -1},
		"xxd":       {opts: xxdOpts, use: useRead, maxOps: 1, whole: true}, // a second operand is the output file
		"base64":    {opts: b64Opts, use: useRead, maxOps: 1},
		"bat":       {opts: batOpts, use: useRead, maxOps: -1},
		"jq":        {opts: jqOpts, use: useRead, maxOps: -1, pattern: true, patternOpts: []string{"-f", "--from-file"}, check: jqCheck},
		"column":    {opts: columnOpts, use: useRead, maxOps: -1},
		"file":      {opts: fileOpts, use: useRead, maxOps: -1},
		"sha1sum":   {opts: sumOpts, use: useRead, maxOps: -1},
		"sha224sum": {opts: sumOpts, use: useRead, maxOps: -1},
		"sha256sum": {opts: sumOpts, use: useRead, maxOps: -1},
		"sha384sum": {opts: sumOpts, use: useRead, maxOps: -1},
		"sha512sum": {opts: sumOpts, use: useRead, maxOps: -1},
		"md5sum":    {opts: sumOpts, use: useRead, maxOps: -1},
		"b2sum":     {opts: sumOpts, use: useRead, maxOps: -1},
		"cksum":     {opts: sumOpts, use: useRead, maxOps: -1},
		"stat":      {opts: statOpts, use: useLook, maxOps: -1},
		"du":        {opts: duOpts, use: useLook, maxOps: -1},
		"df":        {opts: dfOpts, use: useLook, maxOps: -1},
		"tree":      {opts: treeOpts, use: useLook, maxOps: -1},
		"realpath":  {opts: realpathOpts, use: useLook, maxOps: -1},
		"readlink":  {opts: readlinkOpts, use: useLook, maxOps: -1},
		"basename":  {opts: nameOpts, maxOps: -1},
		"dirname":   {opts: opts(common + " -z --zero"), maxOps: -1},
		"tr":        {opts: trOpts, maxOps: 2},
		"date":      {opts: dateOpts, maxOps: 1, check: dateCheck},
		"seq":       {opts: opts(common + " -f= --format= -s= --separator= -w --equal-width"), maxOps: 3, digits: true},
		"sleep":     {opts: opts(common), maxOps: -1},
		"pwd":       {opts: opts("-L -P --help --version"), maxOps: 0},
		"whoami":    {opts: opts(common), maxOps: 0},
		"id":        {opts: opts(common + " -a -Z --context -g --group -G --groups -n --name -r --real -u --user -z --zero"), maxOps: 1},
		"groups":    {opts: opts(common), maxOps: -1},
		"uname":     {opts: opts(common + " -a --all -s --kernel-name -n --nodename -r --kernel-release -v --kernel-version -m --machine -p --processor -i --hardware-platform -o --operating-system"), maxOps: 0},
		"tty":       {opts: opts(common + " -s --silent --quiet"), maxOps: 0},
		"uptime":    {opts: opts(common + " -p --pretty -s --since -r --raw -c --container"), maxOps: 0},
		"nproc":     {opts: opts(common + " --all --ignore="), maxOps: 0},
		"locale":    {opts: opts(common + " -a --all-locales -m --charmaps -c --category-name -k --keyword-name -v --verbose"), maxOps: -1},
		"hostname":  {opts: opts(common + " -a --alias -A --all-fqdns -d --domain -f --fqdn --long -i --ip-address -I --all-ip-addresses -s --short -y --yp --nis"), maxOps: 0},
		"printenv":  {opts: opts(common + " -0 --null"), maxOps: -1},
		"ps":        {opts: psOpts, maxOps: -1, check: psCheck},
		"which":     {opts: opts("-a -s --all --skip-alias --skip-functions --read-alias --read-functions"), maxOps: -1},
		"type":      {opts: opts("-a -f -p -P -t"), use: useRead, maxOps: -1}, // on Windows, type prints files
		"cd":        {free: true},
		"true":      {free: true},
		"false":     {free: true},
		"test":      {free: true, check: testCheck}, // test and [ only compare: nothing they are given runs
		"[":         {free: true, check: testCheck},
		"echo":      {free: true},
		"printf":    {free: true, check: printfCheck},
		// Alone, without a command to run, env prints the environment, nice the niceness and
		// command what a name is (a command after them is a wrapper, judged elsewhere).
		"env":     {free: true, check: envCheck},
		"nice":    {opts: opts(common), maxOps: 0},
		"command": {opts: opts("-v -V -p"), maxOps: -1},
		"find":    {free: true, check: findCheck},
		"go":      {free: true, check: goCheck},
	}
}}

// printfCheck refuses -v (bash's printf sets a variable, PATH as well as any) and a format
// only known at run time or a glob (a file named -vPATH).
func printfCheck(args []Word) bool {
	return len(args) == 0 || args[0].Literal() && !strings.HasPrefix(args[0].Text, "-v")
}

// testCheck refuses -v: bash evaluates the subscript of the name it tests (test -v
// 'a[$(touch x)]' runs touch).
func testCheck(args []Word) bool {
	return !hasExact(args, "-v")
}

// dateCheck refuses -r and --reference (in any spelling: date reads FILE) and an operand that
// is not a +FORMAT: `date MMDDhhmm` sets the clock.
func dateCheck(args []Word) bool {
	pa, ok := program{opts: dateOpts}.parseArgs(args)
	if !ok || slices.Contains(pa.used, "-r") || slices.Contains(pa.used, "--reference") {
		return false
	}
	for _, o := range pa.ops {
		if !strings.HasPrefix(o.Text, "+") {
			return false
		}
	}
	return true
}

// envCheck: plain env's operands must all be assignments; anything else would be a command.
func envCheck(args []Word) bool {
	pa, ok := envAlone.parseArgs(args)
	if !ok {
		return false
	}
	for _, o := range pa.ops {
		if !strings.Contains(o.Text, "=") {
			return false
		}
	}
	return true
}

var envAlone = program{opts: &optTable{spec: common + " -0 --null -i --ignore-environment -u= --unset= -v --debug !-S !--split-string !-C !--chdir"}, maxOps: -1}

// jqCheck refuses --args and --jsonargs, after which the table would take values for files.
func jqCheck(args []Word) bool {
	return !hasExact(args, "--args") && !hasExact(args, "--jsonargs")
}

// psCheck: ps takes BSD options without a dash (ps aux); only letters ps is known to read
// as display options are allowed there. Not e: it prints other processes' environments,
// where keys live.
func psCheck(args []Word) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.Text, "-") && strings.Trim(a.Text, "auxfjlwrTUvmsSch") != "" {
			return false
		}
	}
	return true
}

// findPrimaries are find's harmless primaries with the number of words each takes. -exec,
// -execdir, -ok, -okdir run programs; -delete removes; -fprint, -fprint0, -fprintf and -fls
// write files; -files0-from reads start points from a file: none is listed.
var findPrimaries = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{
		"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
		"-regex": 1, "-iregex": 1, "-regextype": 1, "-type": 1, "-xtype": 1, "-maxdepth": 1,
		"-mindepth": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-size": 1, "-mtime": 1, "-mmin": 1,
		"-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1, "-used": 1, "-empty": 0, "-executable": 0,
		"-readable": 0, "-writable": 0, "-perm": 1, "-user": 1, "-group": 1, "-uid": 1, "-gid": 1,
		"-nouser": 0, "-nogroup": 0, "-links": 1, "-inum": 1, "-samefile": 1, "-lname": 1,
		"-ilname": 1, "-false": 0, "-true": 0, "-print": 0, "-print0": 0, "-printf": 1, "-ls": 0,
		"-prune": 0, "-quit": 0, "-depth": 0, "-d": 0, "-mount": 0, "-xdev": 0, "-follow": 0,
		"-noleaf": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-daystart": 0,
		"-warn": 0, "-nowarn": 0, "-not": 0, "!": 0, "-o": 0, "-or": 0, "-a": 0, "-and": 0,
		"(": 0, ")": 0, ",": 0, "-fstype": 1, "-context": 1, "-help": 0, "--help": 0, "-version": 0,
		"--version": 0,
	}
}}

// findParts splits find's words into its start points and its expression; ok is false when
// a word is not known harmless.
func findParts(args []Word) (starts []Word, ok bool) {
	i := 0
	for ; i < len(args); i++ { // -H, -L, -P, -D opts, -Olevel
		t := args[i].Text
		if args[i].Dynamic {
			return nil, false
		}
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") && isDigits(t[2:]) {
			continue
		}
		if t == "-D" && i+1 < len(args) && !args[i+1].Dynamic {
			i++
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		t := args[i].Text
		if args[i].Dynamic {
			return nil, false
		}
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" {
			break
		}
		starts = append(starts, args[i])
	}
	for ; i < len(args); i++ {
		a := args[i]
		n, known := findPrimaries.Get()[a.Text]
		if a.Dynamic || !known || i+n >= len(args) {
			return nil, false
		}
		for j := 1; j <= n; j++ {
			if args[i+j].Dynamic {
				return nil, false
			}
		}
		i += n
	}
	return starts, true
}

func findCheck(args []Word) bool {
	_, ok := findParts(args)
	return ok
}

// goCheck accepts go version, list, doc and env in their printing forms. go's flags are
// single-dash words and go accepts no abbreviations.
func goCheck(args []Word) bool {
	if len(args) == 0 || args[0].Dynamic {
		return false
	}
	allowed := map[string]string{
		"version": "-m -v",
		// -export and -compiled build packages (and run -toolexec); not listed.
		"list": "-f= -json? -m -e -deps -test -find -u -versions -retracted -mod= -tags= -reuse=",
		"doc":  "-all -c -cmd -short -src -u",
		"env":  "-json -changed", // -w and -u write the go env file
	}
	spec, ok := allowed[args[0].Text]
	if !ok {
		return false
	}
	t := opts(spec)
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w.Dynamic {
			return false
		}
		if w.Text == "--" {
			return true
		}
		if !strings.HasPrefix(w.Text, "-") {
			return !slicesDynamic(rest[i:]) // go stops at the first non-flag
		}
		name, _, has := strings.Cut(strings.TrimPrefix(w.Text, "-"), "=")
		kind, known := t.get().kinds["-"+strings.TrimPrefix(name, "-")]
		switch {
		case !known || kind == optBad:
			return false
		case kind == optValue && !has:
			if i+1 >= len(rest) || rest[i+1].Dynamic {
				return false
			}
			i++
		case kind == optFlag && has:
			v := w.Text[strings.IndexByte(w.Text, '=')+1:]
			if v != "true" && v != "false" {
				return false
			}
		}
	}
	return true
}

func slicesDynamic(ws []Word) bool {
	for _, w := range ws {
		if w.Dynamic {
			return true
		}
	}
	return false
}

func hasAny(args []Word, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a.Text == o {
				return true
			}
			// A short option inside a cluster: -fd holds -d.
			if len(o) == 2 && o[0] == '-' && len(a.Text) > 2 && a.Text[0] == '-' && a.Text[1] != '-' &&
				strings.IndexByte(a.Text[1:], o[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

func hasExact(args []Word, s string) bool {
	for _, a := range args {
		if a.Text == s {
			return true
		}
	}
	return false
}

// nameList is a short list of names, searched in turn: a literal of it is laid out by the
// compiler, where a map is built at start (core/lazy).
type nameList []string

func (n nameList) has(name string) bool { return slices.Contains(n, name) }
