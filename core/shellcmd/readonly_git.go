package shellcmd

import (
	"path"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// gitLine is a git command as the read-only classification reads it.
type gitLine struct {
	readOnly bool
	// dir is where git runs relative to the command's directory, following -C ("" for it).
	dir string
	// content: the subcommand may print the content of any tracked file.
	content bool
	// reads are the files named as REV:PATH (relative to the top of the repository).
	reads []Word
}

// gitGlobal are git's harmless global options. -c, --config-env, --git-dir, --work-tree,
// --exec-path, --namespace, --super-prefix, --bare and -p/--paginate (a pager) are not.
var gitGlobal = &optTable{spec: `--no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs
	--noglob-pathspecs --icase-pathspecs --no-replace-objects --no-lazy-fetch --no-advice --version
	!-c !--config-env !--git-dir !--work-tree !--exec-path !--namespace !--super-prefix !--bare
	!-p !--paginate !--list-cmds !--html-path !--man-path !--info-path !--help`}

// Diff options shared by diff, show, log and stash show. --output writes a file, --ext-diff
// runs diff.external and --textconv the textconv drivers: refused. Their defaults still
// follow the repository's configuration, which the caller checks (GitConfigHarmless).
const gitDiffOpts = ` -p -u --patch -s --no-patch -U= --unified= --raw --patch-with-raw --patch-with-stat
	-t --stat? --stat-width= --stat-name-width= --stat-graph-width= --stat-count= --numstat
	--shortstat --dirstat? --cumulative --dirstat-by-file? --summary --compact-summary -z
	--name-only --name-status --submodule? --color? --no-color --color-moved? --no-color-moved
	--color-moved-ws= --no-color-moved-ws --word-diff? --word-diff-regex= --color-words? --no-renames
	--rename-empty --no-rename-empty --check --ws-error-highlight= --full-index --binary --abbrev?
	-B? --break-rewrites? -M? --find-renames? -C? --find-copies? --find-copies-harder -D
	--irreversible-delete -l= --diff-filter= -S= -G= --find-object= --pickaxe-all --pickaxe-regex
	-O@ --skip-to= --rotate-to= -R --relative? --no-relative -a --text --ignore-cr-at-eol
	--ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines
	-I= --ignore-matching-lines= --inter-hunk-context= -W --function-context --exit-code --quiet
	--no-ext-diff --no-textconv --ignore-submodules? --src-prefix= --dst-prefix= --no-prefix
	--default-prefix --line-prefix= --ita-invisible-in-index --ita-visible-in-index --minimal
	--patience --histogram --diff-algorithm= --anchored= --indent-heuristic --no-indent-heuristic
	--output-indicator-new= --output-indicator-old= --output-indicator-context= --follow
	!--output !--ext-diff !--textconv !--no-index`

// Revision walking options of log, show, shortlog, whatchanged and reflog. --show-signature
// runs gpg: refused.
const gitRevOpts = ` -n= --max-count= --skip= --since= --after= --until= --before= --since-as-filter=
	--author= --committer= --grep-reflog= --grep= --all-match --invert-grep -i --regexp-ignore-case
	--basic-regexp -E --extended-regexp -F --fixed-strings -P --perl-regexp --remove-empty --merges
	--no-merges --min-parents= --max-parents= --no-min-parents --no-max-parents --first-parent
	--exclude-first-parent-only --not --all --branches? --tags? --remotes? --glob= --exclude=
	--reflog --alternate-refs --single-worktree --ignore-missing --bisect --stdin --cherry-mark
	--cherry-pick --left-only --right-only --cherry -g --walk-reflogs --merge --boundary
	--simplify-by-decoration --full-history --dense --sparse --simplify-merges --ancestry-path?
	--show-pulls --date-order --author-date-order --topo-order --reverse --no-walk? --do-walk
	--oneline --pretty? --format= --abbrev-commit --no-abbrev-commit --expand-tabs? --no-expand-tabs
	--notes? --no-notes --show-notes? --standard-notes --no-standard-notes --show-linear-break?
	--relative-date --date= --parents --children --left-right --graph --show-linear-break
	--decorate? --no-decorate --decorate-refs= --decorate-refs-exclude= --clear-decorations
	--source --mailmap --no-mailmap --use-mailmap --no-use-mailmap --full-diff --log-size -L=
	-m -c --cc --dd --diff-merges= --no-diff-merges --combined-all-paths --remerge-diff --encoding=
	--count --abbrev= !--show-signature`

var (
	gitLogOpts   = &optTable{spec: gitDiffOpts + gitRevOpts}
	gitDiffTable = &optTable{spec: gitDiffOpts + " --cached --staged --merge-base"}
	gitSubs      = lazy.Value[map[string]*optTable]{New: func() map[string]*optTable {
		return map[string]*optTable{
			"status": opts(`-s --short -b --branch --show-stash --porcelain? --long -v --verbose
			-u? --untracked-files? --ignore-submodules? --ignored? -z --column? --no-column
			--ahead-behind --no-ahead-behind --renames --no-renames --find-renames?`),
			"log":         gitLogOpts,
			"whatchanged": gitLogOpts,
			"show":        gitLogOpts,
			"shortlog":    join(gitLogOpts, opts("-n --numbered -s --summary -e --email -w? --group= --committer")),
			"diff":        gitDiffTable,
			// blame --contents reads the file it names in place of the work tree's.
			"blame": opts(`-b --root --show-stats --score-debug -f --show-name -n --show-number -p
			--porcelain --line-porcelain -l -t -S@ --reverse= --first-parent -c -s -e --show-email
			-w --incremental -L= -M? -C? --abbrev? --date= --color-lines --color-by-age --progress
			--no-progress --minimal --ignore-rev= --ignore-revs-file@ --encoding=
			--no-textconv !--textconv !--contents`),
			"ls-files": opts(`-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage
			-u --unmerged -k --killed -z -t -v -f --directory --no-empty-directory --eol -x=
			--exclude= -X@ --exclude-from@ --exclude-per-directory= --exclude-standard --error-unmatch
			--with-tree= --full-name --abbrev? --debug --deduplicate --sparse --format=
			!--recurse-submodules`),
			"ls-tree": opts(`-d -r -t -l --long -z --name-only --name-status --object-only --full-name
			--full-tree --abbrev? --format=`),
			"rev-parse": opts(`--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long
			--revs-only --no-revs --flags --no-flags --default= --prefix= --verify -q --quiet --sq
			--short? --not --abbrev-ref? --symbolic --symbolic-full-name --all --branches? --tags?
			--remotes? --glob= --exclude= --disambiguate= --local-env-vars --path-format=
			--git-dir --git-common-dir --resolve-git-dir= --git-path= --show-toplevel
			--show-superproject-working-tree --shared-index-path --absolute-git-dir
			--is-inside-git-dir --is-inside-work-tree --is-bare-repository --is-shallow-repository
			--show-cdup --show-prefix --show-object-format? --show-ref-format --since= --after=
			--until= --before=`),
			"describe": opts(`--all --tags --contains --abbrev= --candidates= --exact-match --debug
			--long --match= --exclude= --always --first-parent --dirty? --broken?`),
			"cat-file": opts(`-t -s -e -p --batch? --batch-check? --batch-command? --batch-all-objects
			--buffer --follow-symlinks --unordered -z -Z --allow-unknown-type --use-mailmap
			--no-use-mailmap --mailmap --no-mailmap --path= !--textconv !--filters`),
			"show-ref": opts(`--head --heads --branches --tags -d --dereference -s --hash? --abbrev?
			--verify --exists -q --quiet --exclude-existing?`),
			"merge-base":    opts("-a --all --octopus --independent --is-ancestor --fork-point"),
			"name-rev":      opts("--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always"),
			"for-each-ref":  opts("--count= --sort= --format= --color? -s --shell -p --perl --python --tcl --points-at= --merged? --no-merged? --contains? --no-contains? --ignore-case --omit-empty --exclude= --include-root-refs"),
			"count-objects": opts("-v --verbose -H --human-readable"),
			"version":       opts("--build-options"),
			// -O/--open-files-in-pager runs a program on the files found. --untracked and
			// --no-exclude-standard search files git does not track, which the check of tracked
			// files against the ignore file (GitPrintsContent) does not cover.
			"grep": opts(`-a --text --no-textconv -i --ignore-case -I --max-depth= -r --recursive
			--no-recursive -w --word-regexp -v --invert-match -h -H --full-name -E --extended-regexp
			-G --basic-regexp -P --perl-regexp -F --fixed-strings -n --line-number --column -l
			--files-with-matches --name-only -L --files-without-match -z --null -o --only-matching
			-c --count --color? --no-color --break --heading -p --show-function -A= -B= -C=
			--after-context= --before-context= --context= -W --function-context --threads= -f@ -e=
			--and --or --not --all-match -q --quiet --cached --exclude-standard -m= --max-count=
			!--textconv !--no-index !--recurse-submodules !-O !--open-files-in-pager !--untracked
			!--no-exclude-standard`),
			"branch": opts(`-l --list -a --all -r --remotes -v --verbose -q --quiet --contains?
			--no-contains? --merged? --no-merged? --points-at= --sort= --format= --color?
			--no-color --column? --no-column --abbrev= --no-abbrev -i --ignore-case --show-current
			--omit-empty !-d !-D !--delete !-m !-M !--move !-c !-C !--copy !-f !--force !-u
			!--set-upstream-to !--unset-upstream !--edit-description !-t !--track !--no-track
			!--create-reflog !--recurse-submodules`),
			"tag": opts(`-l --list -n? --sort= --contains? --no-contains? --merged? --no-merged?
			--points-at= --column? --no-column --format= --color? -i --ignore-case --omit-empty
			!-a !--annotate !-s !--sign !-u !--local-user !-f !--force !-d !--delete !-v !--verify
			!-m !--message !-F !--file !-e !--edit !--cleanup !--create-reflog`),
			"worktree list":  opts("--porcelain -v --verbose -z --expire="),
			"remote":         opts("-v --verbose"),
			"remote get-url": opts("--push --all"),
			"remote show":    opts("-n"),
			"stash list":     gitLogOpts,
			"stash show":     join(gitDiffTable, opts("--include-untracked --only-untracked -u")),
			"reflog show":    gitLogOpts,
			"reflog exists":  opts(""),
		}
	}}
)

// readGit reads a git command's words (after "git").
func readGit(args []Word) (gitLine, bool) {
	var g gitLine
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			return g, false
		}
		t := a.Text
		if t == "-C" {
			if i+1 >= len(args) || !args[i+1].Literal() {
				return g, false
			}
			i++
			g.dir = joinGitDir(g.dir, args[i].Text)
			continue
		}
		if !strings.HasPrefix(t, "-") {
			break
		}
		name, _, has := strings.Cut(t, "=")
		kind, known := gitGlobal.get().kinds[name]
		if !known || kind == optBad || has {
			return g, false
		}
	}
	if i >= len(args) {
		g.readOnly = true // git alone or git --version: prints
		return g, true
	}
	sub := args[i].Text
	rest := args[i+1:]
	key := sub
	switch sub {
	case "worktree", "remote", "stash", "reflog":
		if len(rest) > 0 && !strings.HasPrefix(rest[0].Text, "-") {
			key = sub + " " + rest[0].Text
			rest = rest[1:]
		} else if sub == "reflog" {
			key = "reflog show"
		} else if sub == "stash" || sub == "worktree" {
			return g, true // readOnly stays false: plain git stash saves
		}
	}
	table, ok := gitSubs.Get()[key]
	if !ok {
		return g, true
	}
	p := program{opts: table, maxOps: -1, digits: true}
	pa, ok := p.parseArgs(rest)
	if !ok {
		return g, true
	}
	used := map[string]bool{}
	for _, u := range pa.used {
		used[u] = true
	}
	switch key {
	case "branch":
		listing := used["-l"] || used["--list"] || used["--contains"] || used["--no-contains"] ||
			used["--merged"] || used["--no-merged"] || used["--points-at"]
		if len(pa.ops) > 0 && !listing {
			return g, true // git branch NAME creates a branch
		}
	case "tag":
		if len(pa.ops) > 0 && !used["-l"] && !used["--list"] {
			return g, true
		}
	case "remote":
		if len(pa.ops) > 0 {
			return g, true
		}
	case "remote show":
		if !used["-n"] {
			return g, true // without -n it connects to the remote, through ssh or a helper
		}
	case "show", "cat-file", "diff", "blame", "grep", "stash show":
		g.content = true
	case "log", "whatchanged", "reflog show", "stash list", "shortlog":
		for _, o := range []string{"-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw",
			"-L", "-c", "--cc", "--dd", "-m", "--diff-merges", "--remerge-diff", "--word-diff",
			"--color-words", "--full-diff", "-W", "--function-context", "-U", "--unified"} {
			g.content = g.content || used[o]
		}
	}
	if key == "show" || key == "cat-file" || key == "diff" || key == "grep" || key == "blame" ||
		key == "log" || key == "whatchanged" {
		for _, o := range pa.ops {
			rev, p, ok := strings.Cut(o.Text, ":")
			// Not C:/dir (a drive on Windows) nor :/text (the commit whose message matches).
			drive := len(rev) == 1 && isAlpha(rev[0])
			message := rev == "" && strings.HasPrefix(p, "/")
			if ok && p != "" && !drive && !message {
				g.reads = append(g.reads, Word{Text: p})
			}
		}
	}
	g.readOnly = true
	return g, true
}

// joinGitDir follows -C the way git does: each one relative to the one before.
func joinGitDir(dir, to string) string {
	if path.IsAbs(to) {
		return path.Clean(to)
	}
	d := path.Clean(path.Join(dir, to))
	if d == "." {
		return ""
	}
	return d
}

// GitDirs returns the directories the line's git commands run in, following `cd` and
// `git -C` (relative to where the line starts, or absolute; "" for where it starts). git
// runs programs its repository's configuration names (core.fsmonitor runs on `git status`),
// so the caller treats the line as not read-only unless the configuration of the repository
// each directory is in (found as git finds it: the nearest .git upwards, a `gitdir:` file
// followed, and its commondir) is harmless by GitConfigHarmless. A directory that is not
// known statically makes the second result false: the caller then treats the line as not
// read-only.
func (s *Script) GitDirs() ([]string, bool) {
	var out []string
	known := true
	for _, c := range s.Commands {
		if c.Name() != "git" || c.Wrapper {
			continue
		}
		g, _ := readGit(c.Words[1:])
		if c.DirUnknown && !path.IsAbs(g.dir) {
			known = false
		}
		d := g.dir
		if !path.IsAbs(d) {
			d = joinGitDir(c.Dir, d)
		}
		if !containsString(out, d) {
			out = append(out, d)
		}
	}
	return out, known
}

// GitPrintsContent reports whether a git command of the line may print the content of any
// tracked file (show, diff, grep, blame, cat-file, stash show, and log with a patch). The
// caller auto-approves such a line as read-only only when no tracked file of the repository
// is hidden by the ignore file: git prints from its own records, where the ignore check of
// operands (FirstIgnored) cannot follow.
func (s *Script) GitPrintsContent() bool {
	for _, c := range s.Commands {
		if c.Name() != "git" || c.Wrapper {
			continue
		}
		if g, _ := readGit(c.Words[1:]); g.content {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
