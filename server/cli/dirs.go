package cli

import (
	"errors"
	"flag"
	"strings"
)

// errOneFolder refuses a second -C for a command that works in one folder.
var errOneFolder = errors.New("this command works in one folder: give -C once")

// dirsFlag is -C: each one given is a workspace root for `cairn run` (docs/cli.md, "cairn
// run"); a command that works in one folder refuses a second instead of using one silently.
type dirsFlag struct {
	dirs []string
	many bool
}

// dirFlags defines -C on fs; many: it may be given several times.
func dirFlags(fs *flag.FlagSet, many bool, usage string) *dirsFlag {
	d := &dirsFlag{many: many}
	fs.Var(d, "C", usage)
	return d
}

func (d *dirsFlag) String() string {
	if d == nil {
		return ""
	}
	return strings.Join(d.dirs, ",")
}

func (d *dirsFlag) Set(v string) error {
	if len(d.dirs) > 0 && !d.many {
		return errOneFolder
	}
	d.dirs = append(d.dirs, v)
	return nil
}

// all returns the folders given, "." when none was.
func (d *dirsFlag) all() []string {
	if len(d.dirs) == 0 {
		return []string{"."}
	}
	return d.dirs
}

// one returns the folder given, "." when none was.
func (d *dirsFlag) one() *string { return &d.all()[0] }
