package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitAliases follows the aliases a git command defines on its own command line with
// `-c alias.NAME=VALUE` or `--config-env alias.NAME=VAR`, so that the deny list and every
// other check see what the alias runs:
//   - a VALUE starting with "!" is a shell script, walked as part of the line;
//   - any other VALUE is the git subcommand it stands for, recorded as one more git command
//     with the arguments that follow the alias on the line (`-c alias.x='push --force' x`
//     is `git push --force`);
//   - a value taken from the environment (--config-env), or a setting only known at run
//     time that may define an alias, is opaque.
//
// Every alias defined is followed, used on the line or not; this is pessimistic on purpose.
func (w *walker) gitAliases(fr *frame, st *syntax.Stmt, args []Word) error {
	type alias struct{ name, value string }
	var defs []alias
	var rest []Word
options:
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		var setting Word
		fromEnv := false
		switch {
		case t == "-c" || t == "--config-env":
			if i+1 >= len(args) {
				break options
			}
			i++
			setting, fromEnv = args[i], t == "--config-env"
		case strings.HasPrefix(t, "--config-env="):
			setting, fromEnv = a, true
			setting.Text = strings.TrimPrefix(t, "--config-env=")
		case a.Dynamic:
			rest = args[i:]
			break options
		case t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" ||
			t == "--super-prefix" || t == "--list-cmds":
			i++
			continue
		case strings.HasPrefix(t, "-"):
			continue
		default:
			rest = args[i:]
			break options
		}
		key, value, _ := strings.Cut(setting.Text, "=")
		if setting.Dynamic && !strings.Contains(key, ".") {
			// `-c "$SETTING"`: the key itself is only known when it runs.
			w.s.Opaque = append(w.s.Opaque, "git reads a setting that is only known when it runs")
			continue
		}
		if !strings.HasPrefix(strings.ToLower(key), "alias.") {
			continue
		}
		if fromEnv || setting.Dynamic {
			w.s.Opaque = append(w.s.Opaque, "a git alias runs a command that is only known when it runs")
			continue
		}
		defs = append(defs, alias{name: key[len("alias."):], value: value})
	}
	for _, d := range defs {
		if body, ok := strings.CutPrefix(strings.TrimSpace(d.value), "!"); ok {
			if err := w.script(body, fr.dir, fr.dirUnknown, fr.depth+1); err != nil {
				return err
			}
			continue
		}
		words := []Word{{Text: "git"}}
		for _, f := range strings.Fields(d.value) {
			words = append(words, Word{Text: strings.Trim(f, `'"`)})
		}
		if len(words) == 1 {
			continue
		}
		if len(rest) > 0 && strings.EqualFold(rest[0].Text, d.name) {
			words = append(words, rest[1:]...)
		}
		if _, err := w.simple(fr, st, words); err != nil {
			return err
		}
	}
	return nil
}
